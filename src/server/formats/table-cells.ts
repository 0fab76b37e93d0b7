// Counts a table file body's cells as its bytes arrive, so a table past its cell budget is refused
// before it is read in full, parsed into millions of values or written: parsing 40 columns of
// 100,000 rows costs seconds and hundreds of MB, counting them a pass over bytes already read.
// A cell is a value of an array inside an array (the rows); the totals row and the columns sit one
// level higher and are not counted (the parse holds them to the columns' count, at most 80). What
// the count misses or adds on a body that is not a table's JSON, the parse refuses later anyway.

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const isSpace = (byte: number) => byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;

/** A table's body nests four deep (the body, rows, a row; the columns' objects): far fewer than this. */
const MAX_DEPTH = 16;

/** Nesting, innermost last: "a" an array, "c" an array of cells (an array in an array), "o" an object. */
type Frame = "a" | "c" | "o";

export class TableCellCounter {
  /** Values seen in arrays of arrays, the rows' cells. */
  cells = 0;
  /** Arrays and objects nested deeper than any table's JSON: the body is refused, its nesting never held. */
  tooDeep = false;
  private readonly frames: Frame[] = [];
  private inString = false;
  private escaped = false;
  /** The innermost array has had no value yet. */
  private empty = false;

  /** Counts a chunk of the body; chunks may split anything, a string or an escape included. */
  feed(chunk: Uint8Array): void {
    for (let i = 0; i < chunk.length; i += 1) {
      const byte = chunk[i]!;
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (byte === BACKSLASH) this.escaped = true;
        else if (byte === QUOTE) this.inString = false;
        continue;
      }
      if (isSpace(byte)) continue;
      const top = this.frames.at(-1);
      if (byte === CLOSE_ARRAY || byte === CLOSE_OBJECT) {
        this.frames.pop();
        this.empty = false;
        continue;
      }
      if (byte === COMMA) {
        if (top === "c") this.cells += 1;
        continue;
      }
      // The first value of an array counts here; later ones at their comma.
      if (this.empty && top === "c") this.cells += 1;
      this.empty = false;
      if (byte === QUOTE) this.inString = true;
      else if (byte === OPEN_ARRAY || byte === OPEN_OBJECT) {
        if (this.frames.length >= MAX_DEPTH) {
          this.tooDeep = true;
          return;
        }
        this.frames.push(byte === OPEN_OBJECT ? "o" : top === "a" ? "c" : "a");
        this.empty = byte === OPEN_ARRAY;
      }
    }
  }
}

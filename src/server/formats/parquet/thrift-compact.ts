// Thrift's compact protocol, the encoding of Parquet's page headers and file footer: only the
// writer side, and only the field types Parquet's metadata uses (bool, i32, i64, binary, list,
// struct). Integers are JavaScript numbers: Parquet's offsets and counts stay far below 2^53.

const TYPE = { TRUE: 1, FALSE: 2, I32: 5, I64: 6, BINARY: 8, LIST: 9, STRUCT: 12 } as const;
export type ListElement = "i32" | "binary" | "struct";
const ELEMENT_TYPE: Record<ListElement, number> = { i32: TYPE.I32, binary: TYPE.BINARY, struct: TYPE.STRUCT };

export class CompactWriter {
  private bytes: number[] = [];
  private lastFieldId = 0;
  private readonly outer: number[] = [];

  private varint(value: number): void {
    let n = value;
    while (n > 0x7f) {
      this.bytes.push((n % 0x80) | 0x80);
      n = Math.floor(n / 0x80);
    }
    this.bytes.push(n);
  }

  // Arithmetic rather than bitwise zigzag: values may exceed 32 bits.
  private zigzag(value: number): void {
    this.varint(value >= 0 ? value * 2 : -value * 2 - 1);
  }

  private fieldHeader(id: number, type: number): void {
    const delta = id - this.lastFieldId;
    if (delta > 0 && delta <= 15) this.bytes.push((delta << 4) | type);
    else {
      this.bytes.push(type);
      this.zigzag(id);
    }
    this.lastFieldId = id;
  }

  private rawBinary(value: string): void {
    const encoded = Buffer.from(value, "utf8");
    this.varint(encoded.length);
    for (const byte of encoded) this.bytes.push(byte);
  }

  private nested(body: () => void): void {
    this.outer.push(this.lastFieldId);
    this.lastFieldId = 0;
    body();
    this.bytes.push(0); // stop
    this.lastFieldId = this.outer.pop()!;
  }

  bool(id: number, value: boolean): this {
    this.fieldHeader(id, value ? TYPE.TRUE : TYPE.FALSE);
    return this;
  }

  i32(id: number, value: number): this {
    this.fieldHeader(id, TYPE.I32);
    this.zigzag(value);
    return this;
  }

  i64(id: number, value: number): this {
    this.fieldHeader(id, TYPE.I64);
    this.zigzag(value);
    return this;
  }

  binary(id: number, value: string): this {
    this.fieldHeader(id, TYPE.BINARY);
    this.rawBinary(value);
    return this;
  }

  struct(id: number, body: (writer: this) => void): this {
    this.fieldHeader(id, TYPE.STRUCT);
    this.nested(() => body(this));
    return this;
  }

  list<T>(id: number, element: ListElement, items: readonly T[], write: (writer: this, item: T) => void): this {
    this.fieldHeader(id, TYPE.LIST);
    const type = ELEMENT_TYPE[element];
    if (items.length < 15) this.bytes.push((items.length << 4) | type);
    else {
      this.bytes.push(0xf0 | type);
      this.varint(items.length);
    }
    for (const item of items) {
      if (element === "struct") this.nested(() => write(this, item));
      else write(this, item);
    }
    return this;
  }

  /** List elements: an i32 or a binary without a field header. */
  element(value: number | string): this {
    if (typeof value === "number") this.zigzag(value);
    else this.rawBinary(value);
    return this;
  }

  /** The encoded top-level struct, with its stop byte. */
  finish(): Buffer {
    this.bytes.push(0);
    return Buffer.from(this.bytes);
  }
}

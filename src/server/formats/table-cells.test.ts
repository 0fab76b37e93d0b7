import { describe, expect, it } from "vitest";
import { TableCellCounter } from "./table-cells";

const counted = (body: string, chunkSize = body.length) => {
  const counter = new TableCellCounter();
  const bytes = Buffer.from(body, "utf8");
  for (let at = 0; at < bytes.length; at += chunkSize) counter.feed(bytes.subarray(at, at + chunkSize));
  return counter;
};

describe("TableCellCounter", () => {
  const body = JSON.stringify({
    format: "csv",
    name: "t",
    columns: [
      { label: "A, [b]", kind: "text" },
      { label: 'q"', kind: "integer" },
      { label: "C", kind: "number" },
    ],
    rows: [
      ['x,"[y]"', 1, null],
      ["\\", -2.5e3, "]],,"],
      ["", 0, 3],
    ],
    totals: ["Total", 3, null],
  });

  it("counts the rows' cells only, whatever the strings hold, the totals and columns left out", () => {
    expect(counted(body).cells).toBe(9);
  });

  it("counts the same when the body arrives a byte at a time, splitting strings and escapes", () => {
    expect(counted(body, 1).cells).toBe(9);
    expect(counted(body, 7).cells).toBe(9);
  });

  it("counts empty rows and tables as no cells, and spaces between values as nothing", () => {
    expect(counted('{"rows": [ [ ], [] ]}').cells).toBe(0);
    expect(counted('{"rows":[]}').cells).toBe(0);
    expect(counted('{"rows": [ [ 1 , "a" ] ,\n [ 2 ,\t"b" ] ]}').cells).toBe(4);
  });

  it("says a body nests too deep once past any table's depth, and stops there", () => {
    const deep = counted(`{"rows":${"[".repeat(100)}`);
    expect(deep.tooDeep).toBe(true);
    expect(counted(body).tooDeep).toBe(false);
  });
});

import { describe, expect, it } from "vitest";
import { toggled } from "./table-selection";

describe("toggled", () => {
  it("adds or takes out only the keys named, and leaves the selection it was given as it was", () => {
    const selected = new Set(["a", "b"]);
    expect([...toggled(selected, ["c", "a"], true)]).toEqual(["a", "b", "c"]);
    expect([...toggled(selected, ["a", "z"], false)]).toEqual(["b"]);
    expect([...selected]).toEqual(["a", "b"]);
  });
});

import { describe, expect, it } from "vitest";
import { shownValue } from "./data-table";
import { formatChange, formatFigure, formatMoney } from "./figures";

describe("one way to write a figure", () => {
  it("writes money with the account's code before it and two decimals, or the amount alone across currencies", () => {
    expect(formatFigure(4890, "money", "USD")).toBe("USD 4,890.00");
    expect(formatFigure(90.888, "money", "EUR")).toBe("EUR 90.89");
    expect(formatMoney(1234.5, null)).toBe("1,234.50");
    expect(formatMoney(null, "USD")).toBe("—");
  });

  it("writes times and percentages with two decimals, counts grouped, units to two decimals at most, as in the files", () => {
    expect(formatFigure(73.117, "times", "USD")).toBe("73.12×");
    expect(formatFigure(0.019, "percent", null)).toBe("1.90%");
    expect(formatFigure(0.0191, "percent", null)).toBe("1.91%");
    expect(formatFigure(1, "percent", null)).toBe("100.00%");
    expect(formatFigure(1234567, "count", null)).toBe("1,234,567");
    expect(formatFigure(2.1255, "units", null)).toBe("2.13");
    expect(formatFigure(3, "units", null)).toBe("3");
    expect(formatFigure(null, "times", null)).toBe("—");
  });

  it("writes a change with its sign and a true minus", () => {
    expect(formatChange(0.125)).toBe("+12.50%");
    expect(formatChange(-0.03)).toBe("−3.00%");
    expect(formatChange(0)).toBe("0.00%");
  });

  it("gives a table's cell the same writing as a card: by the column's format, else its kind", () => {
    expect(shownValue(73.117, "times", "USD")).toBe("73.12×");
    expect(shownValue(73.117, "number", "USD")).toBe("73.12");
    expect(shownValue(0.0191, "percent", null)).toBe("1.91%");
    expect(shownValue(4890, "money", "USD")).toBe("USD 4,890.00");
    expect(shownValue(1500, "integer", null)).toBe("1,500");
    expect(shownValue("2026-11-02", "date", null)).toBe("2026-11-02");
    expect(shownValue(null, "money", "USD")).toBe("—");
  });
});

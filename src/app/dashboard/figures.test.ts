import { describe, expect, it } from "vitest";
import { shownValue } from "./data-table";
import { formatChange, formatFigure, formatMoney, minuteIn, minuteOrBlank, whenIn } from "./figures";

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

describe("one way to write a moment: the local minute in the viewer's zone, with the offset then", () => {
  const noonish = new Date("2026-12-02T12:15:42Z");

  it("writes a moment in São Paulo, Kathmandu and UTC", () => {
    expect(minuteIn(noonish, "America/Sao_Paulo")).toBe("2026-12-02 09:15 UTC−03:00");
    expect(minuteIn(noonish, "Asia/Kathmandu")).toBe("2026-12-02 18:00 UTC+05:45");
    expect(minuteIn(noonish, "UTC")).toBe("2026-12-02 12:15 UTC");
  });

  it("writes the local date, which is not the UTC date near midnight", () => {
    expect(minuteIn(new Date("2026-12-02T02:10:00Z"), "America/Sao_Paulo")).toBe("2026-12-01 23:10 UTC−03:00");
    expect(minuteIn(new Date("2026-12-01T18:20:00Z"), "Asia/Kathmandu")).toBe("2026-12-02 00:05 UTC+05:45");
  });

  it("writes each side of a daylight-saving change with its own offset, so the hour that repeats reads twice, differently", () => {
    // New York, 2026-03-08: 02:00 EST became 03:00 EDT; 2026-11-01: 02:00 EDT became 01:00 EST.
    expect(minuteIn(new Date("2026-03-08T06:59:00Z"), "America/New_York")).toBe("2026-03-08 01:59 UTC−05:00");
    expect(minuteIn(new Date("2026-03-08T07:00:00Z"), "America/New_York")).toBe("2026-03-08 03:00 UTC−04:00");
    expect(minuteIn(new Date("2026-11-01T05:30:00Z"), "America/New_York")).toBe("2026-11-01 01:30 UTC−04:00");
    expect(minuteIn(new Date("2026-11-01T06:30:00Z"), "America/New_York")).toBe("2026-11-01 01:30 UTC−05:00");
    // Lord Howe's half hour: +11:00 in summer, +10:30 after 2026-04-05 02:00 local.
    expect(minuteIn(new Date("2026-04-04T14:59:00Z"), "Australia/Lord_Howe")).toBe("2026-04-05 01:59 UTC+11:00");
    expect(minuteIn(new Date("2026-04-04T15:00:00Z"), "Australia/Lord_Howe")).toBe("2026-04-05 01:30 UTC+10:30");
  });

  it("writes a missing moment as never or blank", () => {
    expect(whenIn(null, "America/Sao_Paulo")).toBe("never");
    expect(minuteOrBlank(null, "America/Sao_Paulo")).toBe("");
    expect(whenIn(noonish, "America/Sao_Paulo")).toBe("2026-12-02 09:15 UTC−03:00");
  });
});

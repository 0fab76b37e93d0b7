// The order token as docs/conversions.md defines it: its test vectors against Tally's code, and the
// two snippets publishers copy (Node.js, run here as they are; Python 3, run by python3) against
// Tally's code over many generated orders, so the documentation and the server cannot drift apart.
import { execFileSync } from "node:child_process";
import { createHmac } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decimalOf, orderTokenMessage, orderTotalMicros, type TotalLine } from "@/contracts/order-token";
import { signOrderToken } from "./order-proof";

const doc = readFileSync(path.join(process.cwd(), "docs/conversions.md"), "utf8");

/** The fenced code block right after `<!-- marker -->`. */
function snippet(marker: string): string {
  const start = doc.indexOf(`<!-- ${marker} -->`);
  expect(start, `docs/conversions.md has <!-- ${marker} -->`).toBeGreaterThan(-1);
  const open = doc.indexOf("\n", doc.indexOf("```", start)) + 1;
  return doc.slice(open, doc.indexOf("\n```", open));
}

interface Vector {
  orderId: string;
  items: TotalLine[];
  total: bigint;
  token: string;
}

const SECRET = /with the secret\n`([^`]+)`/.exec(doc)?.[1] ?? "";
const tableLines = doc.slice(doc.indexOf("| `order_id` | `items` (quantity, promotional_price)")).split("\n").slice(2);
const vectors: Vector[] = tableLines
  .slice(
    0,
    tableLines.findIndex((line) => !line.startsWith("| `")),
  )
  .map((line) => {
    const [orderId, items, total, token] = line
      .split("|")
      .slice(1, 5)
      .map((cell) => cell.trim().replaceAll("`", ""));
    return { orderId: orderId!, items: JSON.parse(items!) as TotalLine[], total: BigInt(total!), token: token! };
  });

// The Node.js snippet, run as published: its one import handed in.
const node = new Function("createHmac", `${snippet("order-token-node").replace(/^import .*$/m, "")}\nreturn { orderTotalMicros, orderToken };`)(createHmac) as {
  orderTotalMicros: (items: TotalLine[]) => bigint;
  orderToken: (secret: string, orderId: string, items: TotalLine[]) => string;
};

/** The Python snippet over `orders`: each order's total and token, as python3 computes them. */
function python(secret: string, orders: { orderId: string; items: TotalLine[] }[]): { total: string; token: string }[] {
  const program = `${snippet("order-token-python")}
import json, sys
request = json.load(sys.stdin)
print(json.dumps([{"total": str(order_total_micros(o["items"])), "token": order_token(request["secret"], o["orderId"], o["items"])} for o in request["orders"]]))
`;
  return JSON.parse(execFileSync("python3", ["-c", program], { input: JSON.stringify({ secret, orders }), encoding: "utf8" }));
}

describe("order tokens (docs/conversions.md)", () => {
  it("the test vectors hold for Tally's code, the Node.js snippet and the Python snippet", () => {
    expect(SECRET).toMatch(/^tss_/);
    expect(vectors).toHaveLength(3);
    for (const v of vectors) {
      expect(orderTotalMicros(v.items), v.orderId).toBe(v.total);
      expect(signOrderToken(SECRET, v.orderId, v.total), v.orderId).toBe(v.token);
      expect(node.orderTotalMicros(v.items)).toBe(v.total);
      expect(node.orderToken(SECRET, v.orderId, v.items)).toBe(v.token);
    }
    expect(
      python(
        SECRET,
        vectors.map(({ orderId, items }) => ({ orderId, items })),
      ),
    ).toEqual(vectors.map((v) => ({ total: String(v.total), token: v.token })));
  });

  it("the message is the order id, a line feed and the total's digits", () => {
    expect(orderTokenMessage("100023", 56_800_000n)).toBe("100023\n56800000");
    expect(orderTokenMessage("ø-1", 5_000_000_000_000_000_000n)).toBe("ø-1\n5000000000000000000");
  });

  it("totals are exact on the numbers' decimals, halves rounded up, for every number a valid order may hold", () => {
    expect(decimalOf(19.9)).toEqual({ digits: 199n, scale: 1 });
    expect(decimalOf(1e-7)).toEqual({ digits: 1n, scale: 7 });
    expect(decimalOf(1e21)).toEqual({ digits: 1n, scale: -21 });
    expect(() => decimalOf(Number.NaN)).toThrow(RangeError);
    // 0.1 × 3 is 0.30000000000000004 in floating point; exactly 300,000 micro-units here.
    expect(orderTotalMicros([{ quantity: 3, promotional_price: 0.1 }])).toBe(300_000n);
    expect(orderTotalMicros([{ quantity: 0.5, promotional_price: 0.000001 }])).toBe(1n);
    expect(orderTotalMicros([{ quantity: 0.4999999, promotional_price: 0.000001 }])).toBe(0n);
    expect(orderTotalMicros(Array.from({ length: 500 }, () => ({ quantity: 10_000, promotional_price: 1_000_000 })))).toBe(5_000_000_000_000_000_000n);
  });

  it("the two snippets agree with Tally's code on generated orders", () => {
    // Prices in cents and odd decimals alike, quantities whole and fractional, up to the schema's bounds.
    const amount = (max: number) =>
      fc.oneof(
        fc.integer({ min: 0, max: max * 100 }).map((cents) => cents / 100),
        fc.double({ min: 0, max, noNaN: true, noDefaultInfinity: true }),
      );
    const line = fc.record({ quantity: amount(10_000).filter((q) => q > 0), promotional_price: amount(1_000_000) });
    const orders = fc.sample(
      fc.record({
        orderId: fc.string({ minLength: 1, maxLength: 20 }).filter((id) => !/[\p{Cc}\p{Cs}]/u.test(id)),
        items: fc.array(line, { minLength: 1, maxLength: 5 }),
      }),
      {
        numRuns: 400,
        seed: 20261128,
      },
    );
    const fromPython = python(SECRET, orders);
    orders.forEach((order, i) => {
      const total = orderTotalMicros(order.items);
      expect(node.orderTotalMicros(order.items)).toBe(total);
      expect(fromPython[i]!.total).toBe(String(total));
      expect(node.orderToken(SECRET, order.orderId, order.items)).toBe(signOrderToken(SECRET, order.orderId, total));
      expect(fromPython[i]!.token).toBe(signOrderToken(SECRET, order.orderId, total));
    });
  });
});

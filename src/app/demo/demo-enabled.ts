// Whether this server serves the demo store (TALLY_DEMO: `npm run dev` turns it on, production
// leaves it off): its pages fire real beacons and orders at the demo publisher, which a real
// deployment must not offer to the world. Read per request, never when the app is built.
import { notFound } from "next/navigation";
import { connection } from "next/server";
import { env } from "@/env";

export async function demoEnabled(): Promise<boolean> {
  // Waiting for a request keeps any page that asks out of the build's static pages.
  await connection();
  return env().TALLY_DEMO;
}

/** A 404 (Next's own page) unless the demo is on. */
export async function requireDemo(): Promise<void> {
  if (!(await demoEnabled())) notFound();
}

import type { Metadata } from "next";
import { Exports } from "./exports";

export const metadata: Metadata = { title: "Exports" };

export default function ExportsPage() {
  return <Exports />;
}

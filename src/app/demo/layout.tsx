import type { ReactNode } from "react";
import { requireDemo } from "./demo-enabled";

// Every demo page checks too: Next.js may render a page alongside its layout, so the layout's
// 404 alone would not keep a page's database reads from running.
export default async function DemoLayout({ children }: { children: ReactNode }) {
  await requireDemo();
  return children;
}

import Link from "next/link";
import { demoEnabled } from "./demo/demo-enabled";

// The demo store's link only where it is served (TALLY_DEMO), decided per request.
export async function TopNav() {
  const demo = await demoEnabled();
  return (
    <nav className="top" aria-label="Main">
      <Link href="/" className="brand">
        Tally
      </Link>
      <Link href="/dashboard">Dashboard</Link>
      {demo ? <Link href="/demo">Demo store</Link> : null}
      <Link href="/docs">Docs</Link>
    </nav>
  );
}

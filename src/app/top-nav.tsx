import Link from "next/link";

export function TopNav() {
  return (
    <nav className="top" aria-label="Main">
      <Link href="/" className="brand">Tally</Link>
      <Link href="/dashboard">Dashboard</Link>
      <Link href="/demo">Demo store</Link>
      <Link href="/docs">Docs</Link>
    </nav>
  );
}

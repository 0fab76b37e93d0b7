// Any address with nothing behind it. Rendered per request (TopNav waits for one), not once at
// build time as Next's own 404 would be: a page built ahead carries no nonce, and the pages'
// Content-Security-Policy (src/proxy.ts) would then refuse its scripts.
import { TopNav } from "./top-nav";

export default async function NotFound() {
  return (
    <>
      <TopNav />
      <main>
        <h1>Not found</h1>
        <p>There is nothing at this address.</p>
      </main>
    </>
  );
}

import Link from "next/link";
import { demoEnabled } from "./demo/demo-enabled";
import { TopNav } from "./top-nav";

export default async function LandingPage() {
  // Read per request (TALLY_DEMO), so this page is not built once with the build's environment.
  const demo = await demoEnabled();
  return (
    <>
      <TopNav />
      <main>
        <section className="hero">
          <p>Retail media measurement</p>
          <h1>Tally counts every sponsored impression, view, click and sale, and hands you the data.</h1>
          <p>
            Retailers show sponsored products and banners of brands on their sites and apps. Tally hands out those ads with signed beacon addresses, records
            what shoppers see and click, attributes purchases to the ads that led to them, and delivers reports and raw data to advertisers, publishers and
            their data teams.
          </p>
        </section>
        <div className="cards">
          <section className="card">
            <h2>Account managers</h2>
            <p>Campaigns, ads, budgets, API keys and export destinations, with charts of what is happening.</p>
            <Link className="button" href="/dashboard">
              Open the dashboard
            </Link>
          </section>
          <section className="card">
            <h2>Publishers</h2>
            {demo ? (
              <>
                <p>See the ad query, the browser SDK and the conversion beacon at work in a small demo store.</p>
                <Link className="button" href="/demo">
                  Visit the demo store
                </Link>
              </>
            ) : (
              <>
                <p>The ad query, the browser SDK and the conversion beacon, with examples for your pages and servers.</p>
                <Link className="button" href="/docs/ingest">
                  Read the integration guide
                </Link>
              </>
            )}
          </section>
          <section className="card">
            <h2>Data teams</h2>
            <p>Raw events as Snappy Parquet and daily aggregates as CSV in your own S3-compatible bucket.</p>
            <Link className="button" href="/docs">
              Read the docs
            </Link>
            <p>
              Reports over HTTP: the <a href="/docs/api">API reference</a> and its OpenAPI document, <a href="/openapi.json">/openapi.json</a>.
            </p>
          </section>
        </div>
        <section className="card" style={{ marginTop: "2rem" }}>
          <h2>How an event flows</h2>
          <ol className="steps">
            <li>
              The store asks <code>POST /v1/ads</code> for ads; each comes with signed impression, view and click addresses.
            </li>
            <li>The browser SDK posts beacons to those addresses; each accepted beacon is stored, de-duplicated and billed.</li>
            <li>
              The store sends <code>POST /v1/beacon/conversion</code> for each order; items are attributed to the ads the shopper saw or clicked in the 14 days
              before.
            </li>
            <li>Report routes answer as JSON or XLSX; scheduled exports write Parquet and CSV into the customer&apos;s bucket.</li>
          </ol>
        </section>
      </main>
    </>
  );
}

// Runs in the browser before the app's own code (Next.js's client instrumentation). The forms
// check their input with the server's zod schemas; zod would first probe whether it may compile
// them with `new Function`, and Tally's Content-Security-Policy (no 'unsafe-eval') refuses that
// probe and reports it as a violation on every page with a form. Interpreted schemas need no eval.
import { z } from "zod";

z.config({ jitless: true });

import type { Metadata } from "next";
import { InvalidTraffic } from "./invalid-traffic";

export const metadata: Metadata = { title: "Invalid traffic" };

export default function InvalidTrafficPage() {
  return <InvalidTraffic />;
}

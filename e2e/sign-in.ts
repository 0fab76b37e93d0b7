// Signing in through the form, as a person would; the seeded staff login is printed by the seed.
import { expect, type Page } from "@playwright/test";

export const STAFF = { email: "staff@tally.local", password: "tally-demo-staff" } as const;

export async function signIn(page: Page, email: string, password: string): Promise<void> {
  await page.goto("/sign-in");
  await page.getByLabel("E-mail").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Overview" })).toBeVisible();
}

export const signInAsStaff = (page: Page) => signIn(page, STAFF.email, STAFF.password);

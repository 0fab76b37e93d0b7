"use client";
// The sign-in form: e-mail and password; a refusal is said beside the form, and a signed-in user goes to the dashboard.
import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { type FormEvent, useState } from "react";
import { Problem } from "../problem";
import { useTRPC } from "../trpc-client";

export function SignInForm() {
  const trpc = useTRPC();
  const router = useRouter();
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const signIn = useMutation(trpc.auth.signIn.mutationOptions({ onSuccess: () => router.replace("/dashboard") }));

  const submit = (event: FormEvent) => {
    event.preventDefault();
    signIn.mutate({ email, password });
  };

  return (
    <form className="form" onSubmit={submit} aria-describedby={signIn.error ? "sign-in-error" : undefined}>
      <label>
        E-mail
        <input type="email" name="email" autoComplete="username" required value={email} onChange={(e) => setEmail(e.target.value)} />
      </label>
      <label>
        Password
        <input type="password" name="password" autoComplete="current-password" required value={password} onChange={(e) => setPassword(e.target.value)} />
      </label>
      {/* The form's description while it holds a refusal (aria-describedby above). */}
      <div id="sign-in-error">
        <Problem message={signIn.error?.message} />
      </div>
      <button type="submit" className="button" disabled={signIn.isPending}>
        {signIn.isPending ? "Signing in…" : "Sign in"}
      </button>
    </form>
  );
}

"use client";
// The invitation's form: a name and a password twice, checked here by the server's own schema,
// then the user is created, signed in (the answer sets the session cookie) and sent to the dashboard.
import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { type FormEvent, useState } from "react";
import { Problem } from "@/app/problem";
import { ZAcceptInvitationInput } from "@/server/teams/team-input";
import { useTRPC } from "../../trpc-client";

const FIELDS: Record<string, string> = { name: "Name", password: "Password", passwordAgain: "Password again" };

export function AcceptInvitationForm({ token, email }: { token: string; email: string }) {
  const trpc = useTRPC();
  const router = useRouter();
  const [name, setName] = useState("");
  const [password, setPassword] = useState("");
  const [passwordAgain, setPasswordAgain] = useState("");
  const [problem, setProblem] = useState<string | null>(null);
  const accept = useMutation(trpc.teams.accept.mutationOptions({ onSuccess: () => router.replace("/dashboard") }));

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const parsed = ZAcceptInvitationInput.safeParse({ token, name, password, passwordAgain });
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      return setProblem(`${FIELDS[String(issue.path[0])] ?? "Input"} ${issue.message}`);
    }
    setProblem(null);
    accept.mutate(parsed.data);
  };

  return (
    <form className="form" noValidate onSubmit={submit} aria-label="Accept the invitation">
      <label>
        E-mail
        <input type="email" name="email" autoComplete="username" value={email} readOnly />
      </label>
      <label>
        Name
        <input name="name" autoComplete="name" required value={name} onChange={(e) => setName(e.target.value)} />
      </label>
      <label>
        Password (10 characters or more)
        <input type="password" name="password" autoComplete="new-password" required value={password} onChange={(e) => setPassword(e.target.value)} />
      </label>
      <label>
        Password again
        <input
          type="password"
          name="password-again"
          autoComplete="new-password"
          required
          value={passwordAgain}
          onChange={(e) => setPasswordAgain(e.target.value)}
        />
      </label>
      <Problem message={problem} />
      <Problem message={accept.error?.message} />
      <button type="submit" className="button" disabled={accept.isPending}>
        {accept.isPending ? "Joining…" : "Join and sign in"}
      </button>
    </form>
  );
}

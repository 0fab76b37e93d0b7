"use client";
// Create or edit an export destination, checked with the server's own schema before it is sent.
// A stored secret is never shown: the field holds the mask, which keeps the secret if unchanged.
// A role's external id is Tally's (generated when the destination is saved): shown, never edited.
// The server's problems (its `data.fieldErrors`: `endpoint` must be a public address, ...) go on
// their fields too.
import { type FormEvent, useState } from "react";
import { FieldProblem, Problem } from "@/app/problem";
import { type AggregateLayout, EXPORT_TYPES } from "@/server/core/export-types";
import { SECRET_MASK, type TDestinationInput, ZDestinationInput } from "@/server/pipeline/export/destinations/destination-input";

export interface DestinationFormValue {
  name: string;
  bucket: string;
  region: string;
  endpoint: string;
  forcePathStyle: boolean;
  prefix: string;
  kind: "access_key" | "assume_role";
  accessKeyId: string;
  secretAccessKey: string;
  roleArn: string;
  /** Shown only: Tally generates it. */
  externalId: string;
  types: string[];
  writeSuccessMarker: boolean;
  aggregateLayout: AggregateLayout;
}

export const EMPTY_DESTINATION: DestinationFormValue = {
  name: "",
  bucket: "",
  region: "us-east-1",
  endpoint: "",
  forcePathStyle: false,
  prefix: "tally",
  kind: "access_key",
  accessKeyId: "",
  secretAccessKey: "",
  roleArn: "",
  externalId: "",
  types: [...EXPORT_TYPES],
  writeSuccessMarker: true,
  aggregateLayout: "interface",
};

/** The refusal of a save: the tRPC error (its fields in `data.fieldErrors`), or a message alone. */
export type DestinationRefusal = string | { message: string; data?: { fieldErrors?: Record<string, string> | null } | null } | null;

// Fields with an input (or, for types, a message) of their own.
const FIELDS = new Set<string>(Object.keys(EMPTY_DESTINATION).filter((key) => key !== "externalId" && key !== "kind"));

/** The server's refusal split into the form's fields and the rest: the whole message when a field has no place here. */
function serverProblems(refusal: DestinationRefusal): { fields: Record<string, string>; rest: string | null } {
  if (!refusal) return { fields: {}, rest: null };
  if (typeof refusal === "string") return { fields: {}, rest: refusal };
  const fields = refusal.data?.fieldErrors ?? {};
  const placed = Object.keys(fields).length > 0 && Object.keys(fields).every((key) => FIELDS.has(key));
  return placed ? { fields, rest: null } : { fields: {}, rest: refusal.message };
}

// Keys of the form's text inputs: the ones an <input>'s value sets as it is.
type TextKey = { [K in keyof DestinationFormValue]: string extends DestinationFormValue[K] ? K : never }[keyof DestinationFormValue];

// Over 80 lines on purpose: one screen, its queries, state and markup in the order the page shows them.
export function DestinationForm(props: {
  accountId: string;
  initial: DestinationFormValue;
  submitLabel: string;
  pending: boolean;
  serverError: DestinationRefusal;
  onSubmit: (input: TDestinationInput) => void;
  onCancel: () => void;
}) {
  const [value, setValue] = useState(props.initial);
  const [ownErrors, setErrors] = useState<Record<string, string>>({});
  // A field's problem from the server shows until the field is changed or the form sent again.
  const [edited, setEdited] = useState<Set<string>>(new Set());
  const server = serverProblems(props.serverError);
  const errors: Record<string, string> = { ...Object.fromEntries(Object.entries(server.fields).filter(([key]) => !edited.has(key))), ...ownErrors };
  const set = <K extends keyof DestinationFormValue>(key: K, v: DestinationFormValue[K]) => {
    setValue((old) => ({ ...old, [key]: v }));
    setErrors(({ [key]: _dropped, ...rest }) => rest);
    setEdited((old) => new Set(old).add(key));
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const input = {
      accountId: props.accountId,
      name: value.name,
      bucket: value.bucket,
      region: value.region,
      endpoint: value.endpoint.trim() || null,
      forcePathStyle: value.forcePathStyle,
      prefix: value.prefix,
      writeSuccessMarker: value.writeSuccessMarker,
      aggregateLayout: value.aggregateLayout,
      types: value.types,
      credentials:
        value.kind === "access_key"
          ? { kind: "access_key" as const, accessKeyId: value.accessKeyId, secretAccessKey: value.secretAccessKey }
          : { kind: "assume_role" as const, roleArn: value.roleArn },
    };
    const parsed = ZDestinationInput.safeParse(input);
    if (!parsed.success) {
      setErrors(Object.fromEntries(parsed.error.issues.map((issue) => [String(issue.path.at(-1)), issue.message])));
      return;
    }
    setErrors({});
    setEdited(new Set());
    props.onSubmit(input as TDestinationInput);
  };

  const field = (key: TextKey, label: string, extra: { type?: string; placeholder?: string; autoComplete?: string } = {}) => (
    <div className="field">
      <label>
        {label}
        <input
          type={extra.type ?? "text"}
          value={value[key]}
          placeholder={extra.placeholder}
          autoComplete={extra.autoComplete ?? "off"}
          onChange={(e) => set(key, e.target.value)}
          aria-invalid={errors[key] ? true : undefined}
          aria-describedby={errors[key] ? `${key}-error` : undefined}
        />
      </label>
      <FieldProblem id={`${key}-error`} label={label} message={errors[key]} announce={key in server.fields && !(key in ownErrors)} />
    </div>
  );

  return (
    <form className="form panel" noValidate onSubmit={submit} aria-label={props.submitLabel}>
      {field("name", "Name", { placeholder: "Data lake" })}
      <div className="row">
        {field("bucket", "Bucket", { placeholder: "customer-bucket" })}
        {field("region", "Region")}
      </div>
      <div className="row">
        {field("endpoint", "Endpoint (S3-compatible stores only)", { placeholder: "https://minio.example.com" })}
        {field("prefix", "Key prefix")}
      </div>
      <label className="check">
        <input type="checkbox" checked={value.forcePathStyle} onChange={(e) => set("forcePathStyle", e.target.checked)} /> Path-style addresses (MinIO, most
        S3-compatible stores)
      </label>
      <fieldset>
        <legend>Credentials</legend>
        <label className="check">
          <input type="radio" name="kind" checked={value.kind === "access_key"} onChange={() => set("kind", "access_key")} /> Access key
        </label>
        <label className="check">
          <input type="radio" name="kind" checked={value.kind === "assume_role"} onChange={() => set("kind", "assume_role")} /> Role to assume (with an external
          id)
        </label>
        {value.kind === "access_key" ? (
          <div className="row">
            {field("accessKeyId", "Access key id")}
            {field("secretAccessKey", "Secret access key", {
              type: "password",
              autoComplete: "new-password",
              placeholder: props.initial.secretAccessKey === SECRET_MASK ? "unchanged" : "",
            })}
          </div>
        ) : (
          <>
            {field("roleArn", "Role ARN", { placeholder: "arn:aws:iam::123456789012:role/tally-export" })}
            <p className="muted">
              {value.externalId && props.initial.kind === "assume_role" ? (
                <>
                  External id <code>{value.externalId}</code>: the role&apos;s trust policy must require it (<code>sts:ExternalId</code>). It stays the same
                  when you save changes.
                </>
              ) : (
                "Tally generates the role's external id when you save, and shows it here and on the destination: put it in the role's trust policy (sts:ExternalId)."
              )}
            </p>
          </>
        )}
      </fieldset>
      <fieldset>
        <legend>What to deliver</legend>
        {EXPORT_TYPES.map((type) => (
          <label key={type} className="check">
            <input
              type="checkbox"
              checked={value.types.includes(type)}
              onChange={(e) => set("types", e.target.checked ? [...value.types, type] : value.types.filter((t) => t !== type))}
            />{" "}
            {type}
          </label>
        ))}
        <FieldProblem id="types-error" label="Types" message={errors.types} announce={"types" in server.fields && !("types" in ownErrors)} />
      </fieldset>
      <label>
        Columns of the daily CSV files (advertisers, campaigns, ads)
        <select value={value.aggregateLayout} onChange={(e) => set("aggregateLayout", e.target.value as AggregateLayout)}>
          <option value="interface">The interface&apos;s columns</option>
          <option value="extended">Extended: every report metric after them (click- and view-through, units, cost metrics…)</option>
        </select>
      </label>
      <label className="check">
        <input type="checkbox" checked={value.writeSuccessMarker} onChange={(e) => set("writeSuccessMarker", e.target.checked)} /> Write an empty{" "}
        <code>_SUCCESS</code> object after each batch
      </label>
      <Problem about="The destination was not saved" message={server.rest} />
      <div className="row-buttons">
        <button type="submit" className="button" disabled={props.pending}>
          {props.pending ? "Saving…" : props.submitLabel}
        </button>
        <button type="button" className="link-button" onClick={props.onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

import { describe, expect, it } from "vitest";
import { describeS3Error } from "./s3";

// Errors shaped as @aws-sdk/client-s3 throws them (name, $metadata) and as Node's sockets do (code).
const destination = { bucket: "lake", region: "eu-west-1", endpoint: null };
const s3Error = (name: string, status: number) => Object.assign(new Error(`${name} message`), { name, $metadata: { httpStatusCode: status } });

describe("S3 errors in plain words", () => {
  it("names the problem and whether a person must act", () => {
    expect(describeS3Error(s3Error("AccessDenied", 403), destination)).toEqual({
      message: "access denied: the credentials may not write to bucket lake (AccessDenied)",
      needsAttention: true,
    });
    expect(describeS3Error(s3Error("NoSuchBucket", 404), destination)).toEqual({
      message: "bucket lake does not exist at S3 in eu-west-1",
      needsAttention: true,
    });
    for (const name of ["PermanentRedirect", "AuthorizationHeaderMalformed"]) {
      expect(describeS3Error(s3Error(name, name === "PermanentRedirect" ? 301 : 400), destination)).toEqual({
        message: "bucket lake is not in region eu-west-1: set the bucket's region",
        needsAttention: true,
      });
    }
    expect(
      describeS3Error(Object.assign(new Error("getaddrinfo ENOTFOUND"), { code: "ENOTFOUND" }), { ...destination, endpoint: "https://minio.example" }),
    ).toEqual({ message: "the endpoint https://minio.example cannot be reached (ENOTFOUND)", needsAttention: false });
    expect(describeS3Error(s3Error("InternalError", 500), destination)).toEqual({ message: "InternalError: InternalError message", needsAttention: false });
  });
});

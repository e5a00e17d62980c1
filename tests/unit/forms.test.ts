import { describe, expect, it } from "vitest";
import { messages } from "~/domain/messages";
import { changePasswordSchema, loginSchema, offerActionSchema, proposalSchema, resetPasswordSchema } from "~/domain/validation";
import { parseForm } from "~/lib/forms.server";

function form(body: string): FormData {
  const data = new FormData();
  for (const [name, value] of new URLSearchParams(body)) data.append(name, value);
  return data;
}

describe("reading a form post", () => {
  it("leaves out the names Conform reads as its own JSON, instead of throwing on them", () => {
    expect(parseForm(form("email=a@b.com&password=x&__state__={"), loginSchema)).toMatchObject({ ok: true, value: { email: "a@b.com" } });
    expect(parseForm(form("intent=decline&__intent__=x"), offerActionSchema)).toEqual({ ok: true, value: { intent: "decline" } });
  });

  it("reads a name with a path (an index or a dot) as no field at all, however large its index", () => {
    expect(parseForm(form("intent=accept&materials[20000000]=logo&materials=logo&materials.x=1"), offerActionSchema)).toEqual({
      ok: true,
      value: { intent: "accept", materials: ["logo"] },
    });
  });

  it("answers a field sent twice with the form's own message, and never refuses a sign-in for where it goes next", () => {
    const errorsOf = (result: ReturnType<typeof parseForm>) => (result.ok ? null : Object.values(result.errors).flat());
    expect(errorsOf(parseForm(form("intent=move&to=completed&contentUrl=a&contentUrl=b"), offerActionSchema))).toEqual([messages.enterContentUrl]);
    expect(errorsOf(parseForm(form("token=a&token=b&password=Abcdefg1"), resetPasswordSchema))).toEqual([messages.resetLinkInvalid]);
    expect(errorsOf(parseForm(form("currentPassword=a&currentPassword=b&newPassword=Abcdefg1"), changePasswordSchema))).toEqual([
      messages.currentPasswordWrong,
    ]);
    expect(errorsOf(parseForm(form("email=a@b.com&email=c@d.com&password=x&password=y"), loginSchema))).toEqual([
      messages.incorrectCredentials,
      messages.incorrectCredentials,
    ]);
    expect(errorsOf(parseForm(form("listingId=a&listingId=b&myContentType=blog-post&theirContentType=feature"), proposalSchema))).toContain(
      messages.couldNotSendOffer,
    );
    expect(parseForm(form("email=a@b.com&password=x&redirectTo=/mysite&redirectTo=/market"), loginSchema)).toMatchObject({
      ok: true,
      value: { email: "a@b.com", redirectTo: undefined },
    });
  });
});

import { describe, expect, it } from "vitest";
import { z } from "zod";
import { messages } from "~/domain/messages";
import { passwordProblem } from "~/domain/form-rules";
import { siteAddProblems } from "~/domain/site-add";
import {
  addWebsiteSchema,
  contentTypeProblem,
  cursorField,
  cursorParam,
  feedbackProblem,
  proposalSchema,
  descriptionProblem,
  emailProblem,
  websiteUrlProblem,
  feedbackSchema,
  isEmail,
  isEmailAddress,
  loginSchema,
  passwordChecklist,
  resetRequestSchema,
  signupAccountSchema,
  signupSchema,
  siteAddSchema,
  siteAddSource,
  siteSettingsSchema,
} from "~/domain/validation";

const errorsOf = (result: { success: boolean; error?: { flatten(): { fieldErrors: Record<string, string[] | undefined> } } }) =>
  result.success ? {} : result.error!.flatten().fieldErrors;

const big = "a".repeat(10 * 1024);

describe("sign-up email", () => {
  it.each(["ana@example.com", "first.last+tag@sub.example.co.uk", " padded@example.org "])("accepts %s", (email) => {
    expect(isEmail(email)).toBe(true);
  });
  it.each(
    ["", "ana", "ana@", "ana@example", "ana@example.c", "a b@example.com", `${big}@example.com`].map((value) => ({
      value,
      label: value.slice(0, 30),
    })),
  )("rejects $label", ({ value: email }) => {
    expect(isEmail(email)).toBe(false);
    expect(errorsOf(signupAccountSchema.safeParse({ email, password: "Abcdefg1" })).email).toEqual([messages.emailIncomplete]);
  });
  it.each([
    "ann..lee@example.com",
    ".ann@example.com",
    "ann.@example.com",
    "ann<lee>@example.com",
    "ann@exam_ple.com",
    "ann@-example.com",
    "ann@example.123",
    `${"a".repeat(65)}@example.com`,
  ])("says 'Invalid email' for %s, which looks whole but has a wrong part", (email) => {
    expect(isEmail(email)).toBe(true);
    expect(isEmailAddress(email)).toBe(false);
    expect(emailProblem(email)).toBe(messages.invalidEmail);
    expect(errorsOf(signupAccountSchema.safeParse({ email, password: "Abcdefg1" })).email).toEqual([messages.invalidEmail]);
  });
  it.each([
    "ann.lee+tag@example.com",
    "o'brien@example.ie",
    "josé@correo.es",
    "ann@xn--mnchen-3ya.de",
    "ann@münchen.de",
    "a_b@sub-domain.example.org",
  ])("takes %s as a valid address", (email) => {
    expect(emailProblem(email)).toBeNull();
    expect(signupAccountSchema.safeParse({ email, password: "Abcdefg1" }).success).toBe(true);
  });
  it("is stored lower-case and trimmed", () => {
    const parsed = signupAccountSchema.parse({ email: "  Ana@Example.COM ", password: "Abcdefg1" });
    expect(parsed.email).toBe("ana@example.com");
  });
});

describe("sign-up password checklist", () => {
  it("marks each rule as it is met", () => {
    const met = (password: string) => Object.fromEntries(passwordChecklist(password).map((rule) => [rule.label, rule.isMet]));
    expect(met("")).toEqual({
      [messages.passwordMinLength]: false,
      [messages.passwordUppercase]: false,
      [messages.passwordLowercase]: false,
      [messages.passwordNumber]: false,
    });
    expect(met("abcdefgh")).toMatchObject({
      [messages.passwordMinLength]: true,
      [messages.passwordLowercase]: true,
      [messages.passwordUppercase]: false,
    });
    expect(met("ABC")).toMatchObject({ [messages.passwordUppercase]: true, [messages.passwordMinLength]: false });
    expect(met("1")).toMatchObject({ [messages.passwordNumber]: true });
    expect(Object.values(met("Abcdefg1")).every(Boolean)).toBe(true);
  });
  it("lists every unmet rule as a message of the password field", () => {
    expect(errorsOf(signupAccountSchema.safeParse({ email: "a@example.com", password: "abc" })).password).toEqual([
      messages.passwordMinLength,
      messages.passwordUppercase,
      messages.passwordNumber,
    ]);
  });
  it("counts letters beyond ASCII", () => {
    expect(passwordProblem("Ünïcödé9")).toBeNull();
  });
  it("refuses passwords over 128 characters", () => {
    expect(passwordProblem(`Aa1${"x".repeat(126)}`)).toBe(messages.passwordTooLong);
    expect(errorsOf(signupAccountSchema.safeParse({ email: "a@example.com", password: `Aa1${big}` })).password).toContain(messages.passwordTooLong);
  });
  it("refuses a password that is not text", () => {
    expect(signupAccountSchema.safeParse({ email: "a@example.com", password: 12345678 }).success).toBe(false);
  });
});

describe("website url and description (sign-up step 1 and the add-website dialog)", () => {
  const valid = { email: "a@example.com", password: "Abcdefg1", description: "A blog about gardening in small city spaces." };
  it.each(["example.com", "www.example.com", "https://example.com", "http://www.example.co.uk/blog", "EXAMPLE.io", "münchen.de"])(
    "accepts %s",
    (url) => {
      expect(signupSchema.safeParse({ ...valid, url }).success).toBe(true);
    },
  );
  it.each(
    ["", "example", "http://", "ftp://example.com", "exa mple.com", "javascript:alert(1)", `${big}.com`, ".com"].map((value) => ({
      value,
      label: value.slice(0, 30),
    })),
  )("rejects $label", ({ value: url }) => {
    expect(errorsOf(signupSchema.safeParse({ ...valid, url })).url).toEqual([messages.linkIncomplete]);
    expect(errorsOf(addWebsiteSchema.safeParse({ url, description: valid.description })).url).toEqual([messages.linkIncomplete]);
  });
  it("needs at least 30 characters after trimming", () => {
    expect(descriptionProblem(`   ${"x".repeat(29)}   `)).toBe(messages.descriptionMinimum);
    expect(descriptionProblem("x".repeat(30))).toBeNull();
    expect(errorsOf(signupSchema.safeParse({ ...valid, url: "example.com", description: "too short" })).description).toEqual([
      messages.descriptionMinimum,
    ]);
    expect(errorsOf(addWebsiteSchema.safeParse({ url: "example.com" })).description).toEqual([messages.descriptionMinimum]);
  });
  it("caps the description", () => {
    expect(errorsOf(signupSchema.safeParse({ ...valid, url: "example.com", description: big })).description).toEqual([messages.descriptionMaximum]);
  });
  it("counts nothing a reader cannot see: zero-width and blank characters alone are no description", () => {
    const invisible = "\u200B\u2800\u3164\u00A0".repeat(10);
    expect(descriptionProblem(invisible)).toBe(messages.descriptionMinimum);
    expect(errorsOf(signupSchema.safeParse({ ...valid, url: "example.com", description: invisible })).description).toEqual([
      messages.descriptionMinimum,
    ]);
    expect(descriptionProblem(`Gardening\u200B ${"x".repeat(30)}`)).toBeNull();
  });
});

describe("login and reset only bound their input", () => {
  it("accepts anything reasonable and refuses huge input", () => {
    expect(loginSchema.safeParse({ email: "not-an-email", password: "x" }).success).toBe(true);
    expect(loginSchema.safeParse({ email: big, password: "x" }).success).toBe(false);
    expect(loginSchema.safeParse({ email: "a@example.com" }).success).toBe(false);
  });
  it("reset needs an email address", () => {
    expect(resetRequestSchema.safeParse({ email: "a@example.com" }).success).toBe(true);
    expect(errorsOf(resetRequestSchema.safeParse({ email: "nope" })).email).toEqual([messages.resetFailed]);
  });
});

describe("site-add form", () => {
  const base = { url: "example.com", category: "blog", description: "Anything goes" };
  it("reads its source, defaulting to other", () => {
    expect(siteAddSource("hero")).toBe("hero");
    expect(siteAddSource("market")).toBe("market");
    expect(siteAddSource("evil")).toBe("other");
    expect(siteAddSource(null)).toBe("other");
  });
  it("gives each field its message", () => {
    expect(errorsOf(siteAddSchema("other").safeParse({}))).toEqual({
      url: [messages.invalidUrl],
      category: [messages.selectCategory],
      description: [messages.enterDescription],
    });
    expect(errorsOf(siteAddSchema("other").safeParse({ ...base, category: "gaming" })).category).toEqual([messages.selectCategory]);
    expect(errorsOf(siteAddSchema("other").safeParse({ ...base, description: "   " })).description).toEqual([messages.enterDescription]);
    for (const description of ["\u200B\u200B", "\u2800 \u3164", "\u200B".repeat(600)]) {
      expect(errorsOf(siteAddSchema("other").safeParse({ ...base, description })).description).toEqual([messages.enterDescription]);
      expect(siteAddProblems("other", { ...base, description }).description).toEqual([messages.enterDescription]);
      expect(errorsOf(siteSettingsSchema.safeParse({ description })).description).toEqual([messages.enterDescription]);
    }
    expect(errorsOf(siteSettingsSchema.safeParse({ description: "x".repeat(501) })).description).toEqual([messages.descriptionMaximum]);
    expect(siteSettingsSchema.safeParse({ description: " Seeds\u200B " }).data?.description).toBe("Seeds\u200B");
  });
  it("asks for an email only from the hero", () => {
    expect(siteAddSchema("other").safeParse(base).success).toBe(true);
    expect(errorsOf(siteAddSchema("hero").safeParse(base)).email).toEqual([messages.invalidEmailAddress]);
    expect(errorsOf(siteAddSchema("hero").safeParse({ ...base, email: "nope@" })).email).toEqual([messages.invalidEmailAddress]);
    expect(siteAddSchema("hero").safeParse({ ...base, email: "ana@example.com" }).success).toBe(true);
  });
  it("asks for connects from 1 to 99 only from the market", () => {
    expect(siteAddSchema("market").safeParse({ ...base, connects: "10" }).success).toBe(true);
    for (const connects of [" 12 ", "12.0"]) expect(siteAddSchema("market").safeParse({ ...base, connects }).data?.connects).toBe(12);
    for (const connects of ["0", "100", "5.5", "ten", "0x0A", "1e1", "+5", "", undefined]) {
      expect(errorsOf(siteAddSchema("market").safeParse({ ...base, connects })).connects).toEqual([messages.connectsRange]);
    }
  });
});

describe("feedback", () => {
  it("is empty when blank", () => {
    expect(errorsOf(feedbackSchema.safeParse({ feedback: "  \n " })).feedback).toEqual([messages.feedbackEmpty]);
    expect(errorsOf(feedbackSchema.safeParse({})).feedback).toEqual([messages.feedbackEmpty]);
    expect(errorsOf(feedbackSchema.safeParse({ feedback: "\u200B \u200D\u2800" })).feedback).toEqual([messages.feedbackEmpty]);
    expect(feedbackSchema.parse({ feedback: " Great! " }).feedback).toBe("Great!");
  });
});

describe("one rule and one message for browser and server", () => {
  const cases = [
    "",
    "short",
    " ".repeat(40),
    "x".repeat(29),
    "x".repeat(30),
    "x".repeat(500),
    "x".repeat(501),
    "x".repeat(600),
    ` ${"y".repeat(31)} `,
    "\u200B".repeat(40),
  ];
  it("the add-website dialog and sign-up show what the server answers for a description", () => {
    for (const description of cases) {
      const parsed = addWebsiteSchema.safeParse({ url: "garden-notes.com", description });
      const server = parsed.success ? null : parsed.error.flatten().fieldErrors.description?.[0] ?? null;
      expect(descriptionProblem(description), JSON.stringify(description.slice(0, 12))).toBe(server);
    }
    expect(descriptionProblem("x".repeat(600))).toBe(messages.descriptionMaximum);
  });
  it("and for an address and an email", () => {
    for (const url of ["", "garden", "garden-notes.com", "https://www.garden-notes.com/blog", "http://x", "ftp://a.com"]) {
      const parsed = addWebsiteSchema.safeParse({ url, description: "x".repeat(40) });
      expect(websiteUrlProblem(url), url).toBe(parsed.success ? null : parsed.error.flatten().fieldErrors.url?.[0] ?? null);
    }
    for (const email of ["", "ana@", "ana@example", "ana@example.com", " Ana@Example.com ", "ana..b@example.com", "ana@exa_mple.com"]) {
      const parsed = signupAccountSchema.safeParse({ email, password: "Tr4de-Links-Now" });
      expect(emailProblem(email), email).toBe(parsed.success ? null : parsed.error.flatten().fieldErrors.email?.[0] ?? null);
    }
  });
});

describe("one rule for feedback and proposals", () => {
  it("the feedback dialog and the server agree", () => {
    for (const feedback of ["", "   ", "Great!", "x".repeat(5000), "x".repeat(5001)]) {
      const parsed = feedbackSchema.safeParse({ feedback });
      expect(feedbackProblem(feedback)).toBe(parsed.success ? null : parsed.error.flatten().fieldErrors.feedback?.[0] ?? null);
    }
  });
  it("the proposal form and the server agree on content types", () => {
    for (const type of ["", "blog-post", "feature", "nope", null]) {
      const parsed = proposalSchema.safeParse({ listingId: "x", myContentType: type ?? undefined, theirContentType: "feature" });
      expect(contentTypeProblem(type), String(type)).toBe(parsed.success ? null : parsed.error.flatten().fieldErrors.myContentType?.[0] ?? null);
    }
  });
});

describe("the site-add form's rules in the browser", () => {
  const cases: Record<string, string>[] = [
    {},
    { url: "example.com", category: "blog", description: "A site.", email: "me@example.com", connects: "10" },
    { url: "not a url", category: "blog", description: "x" },
    { url: "example.com", category: "podcast", description: "x" },
    { url: "example.com", category: "product", description: "   " },
    { url: "example.com", category: "product", description: "y".repeat(501) },
    { url: "example.com", category: "blog", description: "ok", email: "nope" },
    { url: "example.com", category: "blog", description: "ok", email: "  Me@Example.com " },
    { url: "example.com", category: "blog", description: "ok", connects: "" },
    { url: "example.com", category: "blog", description: "ok", connects: "0" },
    { url: "example.com", category: "blog", description: "ok", connects: "5.5" },
    { url: "example.com", category: "blog", description: "ok", connects: "100" },
    { url: "example.com", category: "blog", description: "ok", connects: "abc" },
    { url: "example.com", category: "blog", description: "ok", connects: "1e1" },
    { url: "example.com", category: "blog", description: "ok", connects: "12.0" },
    { url: "example.com", category: "blog", description: "ok", connects: " 99 " },
  ];
  it.each(["hero", "market", "other"] as const)("give the same messages as the server's schema (%s)", (source) => {
    for (const values of cases) {
      const server = siteAddSchema(source).safeParse(values);
      const serverErrors = server.success
        ? {}
        : Object.fromEntries(Object.entries(server.error.flatten().fieldErrors).map(([name, list]) => [name, [list![0]]]));
      expect(siteAddProblems(source, values), JSON.stringify(values)).toEqual(serverErrors);
    }
  });
});

describe("page cursor field", () => {
  it("gives the position a cursor names", () => {
    expect(cursorField.safeParse("1763700000123_0b6c2f1e-3a4d")).toEqual({ success: true, data: { at: 1763700000123, id: "0b6c2f1e-3a4d" } });
  });

  it.each(["", "garbage", "1_", "-1_a", "r1_a", "1_a b", `1_${"x".repeat(200)}`])("refuses %j with the page link message", (value) => {
    expect(errorsOf(z.object({ after: cursorField }).safeParse({ after: value }))).toEqual({ after: [messages.pageLinkInvalid] });
  });

  it("refuses what is not a string", () => {
    expect(cursorField.safeParse(12).success).toBe(false);
    expect(cursorField.safeParse(["1_a", "2_b"]).success).toBe(false);
  });

  it("reads a list's position from an address's parameter: none when absent or empty, the message when malformed", () => {
    const params = new URLSearchParams("after=1763700000123_0b6c2f1e&empty=&bad=yesterday");
    expect(cursorParam(params, "after")).toEqual({ position: { at: 1763700000123, id: "0b6c2f1e" }, refused: null });
    expect(cursorParam(params, "empty")).toEqual({ position: null, refused: null });
    expect(cursorParam(params, "missing")).toEqual({ position: null, refused: null });
    expect(cursorParam(params, "bad")).toEqual({ position: null, refused: messages.pageLinkInvalid });
  });
});

import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { feedbackProblems, passwordProblem, proposalProblems, signupAccountProblems, websiteProblems } from "~/domain/form-rules";
import { messages } from "~/domain/messages";
import { addWebsiteSchema, feedbackSchema, proposalSchema, signupAccountSchema, signupSchema } from "~/domain/validation";

/** The server's first message per field, as the forms show one message per field. */
function serverProblems(schema: z.ZodTypeAny, values: object) {
  const parsed = schema.safeParse(values);
  if (parsed.success) return {};
  return Object.fromEntries(Object.entries(parsed.error.flatten().fieldErrors as Record<string, string[]>).map(([name, list]) => [name, [list[0]]]));
}

const big = "x".repeat(10_000);

describe("the browser's form rules give the server's first message per field", () => {
  it("sign-up step 0: email and password", () => {
    const emails = [
      undefined,
      "",
      "ana",
      "ana@",
      "ana@example",
      "ana@example.com",
      " Ana@Example.com ",
      "ana..b@example.com",
      "ana@exa_mple.com",
      `${big}@a.com`,
    ];
    const passwords = [undefined, "", "abc", "abcdefgh", "ABCDEFGH1", "Abcdefg1", "Tr4de-Links-Now", `Aa1${"x".repeat(126)}`, `Aa1${big}`];
    for (const email of emails) {
      for (const password of passwords) {
        const values = { email, password };
        expect(signupAccountProblems(values), JSON.stringify(values).slice(0, 80)).toEqual(serverProblems(signupAccountSchema, values));
      }
    }
  });

  it("a new password's first problem is the first unmet line of the checklist, or its length", () => {
    expect(passwordProblem("")).toBe(messages.passwordMinLength);
    expect(passwordProblem("abcdefgh")).toBe(messages.passwordUppercase);
    expect(passwordProblem("Abcdefgh")).toBe(messages.passwordNumber);
    expect(passwordProblem("Abcdefg1")).toBeNull();
    expect(passwordProblem(`Aa1${"x".repeat(126)}`)).toBe(messages.passwordTooLong);
  });

  it("website url and description: the add-website dialog and sign-up step 1", () => {
    const urls = [
      undefined,
      "",
      "garden",
      "garden-notes.com",
      "https://www.garden-notes.com/blog",
      "http://x",
      "ftp://a.com",
      "exa mple.com",
      `${big}.com`,
    ];
    const descriptions = [
      undefined,
      "",
      "short",
      " ".repeat(40),
      "x".repeat(29),
      "x".repeat(30),
      ` ${"y".repeat(31)} `,
      "\u200B\u2800".repeat(20),
      "x".repeat(500),
      "x".repeat(501),
    ];
    for (const url of urls) {
      for (const description of descriptions) {
        const values = { url, description };
        const label = JSON.stringify(values).slice(0, 80);
        expect(websiteProblems(values), label).toEqual(serverProblems(addWebsiteSchema, values));
        expect(websiteProblems(values), label).toEqual(serverProblems(signupSchema.pick({ url: true, description: true }), values));
      }
    }
  });

  it("a trade proposal: a content type for each side", () => {
    const types = [undefined, "", "blog-post", "feature", "sub-link", "other", "nope", "BLOG-POST"];
    for (const myContentType of types) {
      for (const theirContentType of types) {
        const values = { listingId: "listing", myContentType, theirContentType, myMaterials: ["logo"] };
        expect(proposalProblems(values), JSON.stringify(values)).toEqual(serverProblems(proposalSchema, values));
      }
    }
    expect(proposalProblems({ myContentType: null, theirContentType: "feature" })).toEqual({ myContentType: [messages.selectContentType] });
  });

  it("feedback", () => {
    for (const feedback of [
      undefined,
      "",
      "   ",
      "\n\t",
      "Great!",
      " Great! ",
      "x".repeat(5000),
      ` ${"x".repeat(5000)} `,
      "x".repeat(5001),
      "\u200B\u200D",
      "\u200B".repeat(5001),
    ]) {
      expect(feedbackProblems({ feedback }), JSON.stringify(feedback?.slice(0, 12))).toEqual(serverProblems(feedbackSchema, { feedback }));
    }
    expect(feedbackProblems({ feedback: " " })).toEqual({ feedback: [messages.feedbackEmpty] });
  });
});

import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { Form, Link, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import type { FormEvent } from "react";
import { Wordmark } from "~/components/brand";
import { CheckedField } from "~/components/checked-field";
import { SubmitButton } from "~/components/submit-button";
import { useFieldChecks, useFormValues } from "~/components/use-field-checks";
import { SITE_CATEGORIES } from "~/domain/options";
import { siteAddProblems } from "~/domain/site-add";
import type { FieldErrors } from "~/domain/validation";
import { publicPageMeta } from "~/lib/page-meta";
import { addSite, loadSiteAdd } from "./add-site.server";
import { SkipLink } from "~/components/skip-link";

export const meta: MetaFunction = () =>
  publicPageMeta(
    "Let the matching begin - Backlink Market",
    "List your website on Backlink Market and get matched with related sites by content and score.",
  );

export const loader = ({ request, context }: LoaderFunctionArgs) => loadSiteAdd(request, context);

export const action = ({ request, context }: ActionFunctionArgs) => addSite(request, context);

export default function SiteAddForm() {
  const { source, url } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const navigation = useNavigation();
  const typed: Record<string, string> = actionData?.values ?? {};
  // What the form holds now, checked by the same rules as the server's as the user types (with JavaScript).
  const form = useFormValues({ ...typed, url: typed.url ?? url });
  const checks = useFieldChecks(siteAddProblems(source, form.values), actionData?.errors as FieldErrors | undefined, actionData);
  const exitTo = source === "market" ? "/market" : "/";
  // Through the move to the next page too: pressed again then, it would send the site a second time.
  const busy = navigation.state !== "idle" && navigation.formAction?.startsWith("/add-site") === true;

  const edited = (event: FormEvent<HTMLFormElement>) => {
    form.read();
    checks.formEvents.onChange(event);
  };

  return (
    <div className="page centered-page">
      <SkipLink />
      <header className="public-header">
        <Wordmark to={exitTo} />
        <Link to={exitTo} className="button button-ghost">
          {source === "hero" ? "Back" : "Exit"}
        </Link>
      </header>
      <main className="form-page" id="main">
        <h1>Let the matching begin...</h1>
        <Form
          ref={form.form}
          method="post"
          className="stack card"
          onChange={edited}
          onBlur={checks.formEvents.onBlur}
          onSubmit={(event) => busy && event.preventDefault()}
          noValidate
        >
          <CheckedField id="site-add-url" caption="Website url" message={checks.messageOf("url")}>
            {(control) => <input {...control} name="url" type="text" inputMode="url" placeholder="yourwebsite.com" defaultValue={typed.url ?? url} />}
          </CheckedField>
          {source === "hero" ? (
            <CheckedField id="site-add-email" caption="Email" message={checks.messageOf("email")}>
              {(control) => <input {...control} name="email" type="email" autoComplete="email" defaultValue={typed.email ?? ""} />}
            </CheckedField>
          ) : null}
          <fieldset className="field" aria-describedby={checks.messageOf("category") ? "site-add-category-error" : undefined}>
            <legend>Category</legend>
            <div className="choice-row">
              {SITE_CATEGORIES.map((category) => (
                <label key={category.id} className="choice">
                  <input type="radio" name="category" value={category.id} defaultChecked={typed.category === category.id} />
                  <span>{category.label}</span>
                </label>
              ))}
            </div>
            <span className="field-error" id="site-add-category-error" aria-live="polite">
              {checks.messageOf("category")}
            </span>
          </fieldset>
          <CheckedField id="site-add-description" caption="Description" message={checks.messageOf("description")}>
            {(control) => <textarea {...control} name="description" rows={3} defaultValue={typed.description ?? ""} />}
          </CheckedField>
          {source === "market" ? (
            <CheckedField id="site-add-connects" caption="Connects a proposal needs" message={checks.messageOf("connects")}>
              {(control) => (
                <input {...control} name="connects" type="number" min={1} max={99} placeholder="10" defaultValue={typed.connects ?? ""} />
              )}
            </CheckedField>
          ) : null}
          {actionData?.formError ? (
            <p className="form-error" role="alert">
              {actionData.formError}
            </p>
          ) : null}
          <SubmitButton ready={checks.ready} missing={checks.missing} hintId="site-add-missing" busy={busy}>
            Complete
          </SubmitButton>
        </Form>
      </main>
    </div>
  );
}

import { data, redirect, type ActionFunctionArgs, type MetaFunction } from "@remix-run/cloudflare";
import { useActionData, useSearchParams } from "@remix-run/react";
import { FeedbackDialog } from "~/components/feedback-dialog";
import { messages } from "~/domain/messages";
import { addressWith } from "~/domain/page-address";
import { safeRedirectPath, withNotice } from "~/domain/redirects";
import { feedbackSchema } from "~/domain/validation";
import { firstError, parseForm, readFormData } from "~/lib/forms.server";
import { requireAuth } from "~/services/auth.server";
import { saveFeedback } from "~/services/feedback.server";
import { allow, RATE_LIMITS } from "~/services/rate-limit.server";

export const meta: MetaFunction = () => [{ title: "Feedback - Backlink Market" }];

export async function action({ request, context }: ActionFunctionArgs) {
  const auth = await requireAuth(request, context);
  const formData = await readFormData(request);
  const parsed = parseForm(formData, feedbackSchema);
  if (!parsed.ok) {
    return data({ error: firstError(parsed.errors, "feedback") ?? messages.feedbackEmpty, text: parsed.values.feedback ?? "" }, { status: 400 });
  }
  if (!(await allow(context, RATE_LIMITS.feedbackPerUser, auth.user.id))) {
    return data({ error: messages.tooManyAttempts, text: parsed.value.feedback }, { status: 429 });
  }
  const saved = await saveFeedback(context.db, auth.user.id, auth.session.activeSiteId, parsed.value.feedback, context.now());
  const back = new URL(safeRedirectPath(new URL(request.url).searchParams.get("back")), "http://local");
  const closed = addressWith(back.pathname, back.searchParams, "feedback", null);
  // A message that could not be stored is in the log; the dialog closes as it would (failures are silent), without the thanks.
  throw redirect(saved ? withNotice(closed, "feedback-sent") : closed);
}

/** Without JavaScript a refused post lands here: the dialog again, with the message and the text kept. */
export default function FeedbackPage() {
  const actionData = useActionData<typeof action>();
  const [params] = useSearchParams();
  return <FeedbackDialog closeTo={safeRedirectPath(params.get("back"))} error={actionData?.error} text={actionData?.text} />;
}

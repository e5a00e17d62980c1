import { redirect, type ActionFunctionArgs } from "@remix-run/cloudflare";
import { signOut } from "~/services/auth.server";

export async function action({ request, context }: ActionFunctionArgs) {
  throw redirect("/", { headers: await signOut(request, context) });
}

export function loader() {
  throw redirect("/");
}

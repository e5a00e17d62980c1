import { useRouteLoaderData } from "@remix-run/react";
import type { SignedInShell } from "~/domain/user-site";

/** The signed-in layout's data (the user and their sites), for a page or component inside it; undefined outside it. */
export function useSignedInShell(): SignedInShell | undefined {
  return useRouteLoaderData<SignedInShell>("routes/_app");
}

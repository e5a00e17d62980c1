/**
 * The audit's rank provider: a third party's view of a domain, its authority from 0 to 100 and, when
 * it has one, a backlink count. Configured by RANK_PROVIDER and its key; without it, domain authority is N/A and
 * the score leaves that part out. The provider's address is ours to configure, never a user's, so it is fetched
 * directly (with a deadline), not through the safe fetch. See docs/decisions/0011-authority-score-audit.md.
 */
import type { Env } from "~/lib/env";

export interface RankFigures {
  /** 0 to 100, or null when the provider has no figure for the domain. */
  domainAuthority: number | null;
  backlinks: number | null;
}

export type RankLookup = { ok: true; provider: string; figures: RankFigures } | { ok: false; provider: string; error: string };

export const RANK_LOOKUP_MS = 5_000;

interface Provider {
  name: string;
  request(host: string): Request;
  read(body: unknown, host: string): RankFigures;
  /** The provider answers 404 for a domain it has no figure for (an answer, not a failure). */
  notFoundIsUnknown?: boolean;
}

function figure(value: unknown, max = Number.MAX_SAFE_INTEGER): number | null {
  const number = typeof value === "string" && value.trim() !== "" ? Number(value) : value;
  return typeof number === "number" && Number.isFinite(number) && number >= 0 ? Math.min(max, number) : null;
}

function providerOf(env: Env): Provider | null {
  const key = env.RANK_PROVIDER_KEY ?? "";
  switch ((env.RANK_PROVIDER ?? "").toLowerCase()) {
    case "openpagerank":
      if (!key) return null;
      return {
        name: "Open PageRank",
        request: (host) =>
          new Request(`https://openpagerank.com/api/v1.0/getPageRank?domains%5B%5D=${encodeURIComponent(host)}`, { headers: { "API-OPR": key } }),
        // page_rank_decimal is 0 to 10: ten times it is a percentage.
        read: (body) => {
          const entry = (body as { response?: { page_rank_decimal?: unknown; status_code?: unknown }[] })?.response?.[0];
          const rank = entry && entry.status_code === 200 ? figure(entry.page_rank_decimal, 10) : null;
          return { domainAuthority: rank === null ? null : Math.round(rank * 10), backlinks: null };
        },
      };
    case "json": {
      const template = env.RANK_PROVIDER_URL ?? "";
      if (!template.startsWith("https://") || !template.includes("{host}")) return null;
      return {
        name: "The rank provider",
        notFoundIsUnknown: true,
        request: (host) =>
          new Request(template.replaceAll("{host}", encodeURIComponent(host)), {
            headers: { Accept: "application/json", ...(key ? { Authorization: `Bearer ${key}` } : {}) },
          }),
        read: (body) => {
          const values = body as { domain_authority?: unknown; backlinks?: unknown } | null;
          const authority = figure(values?.domain_authority, 100);
          const backlinks = figure(values?.backlinks);
          return { domainAuthority: authority === null ? null : Math.round(authority), backlinks: backlinks === null ? null : Math.floor(backlinks) };
        },
      };
    }
    default:
      return null;
  }
}

/** Asks the configured provider about a host; null when none is configured. Never throws. */
export async function lookUpRank(env: Env, host: string, timeoutMs = RANK_LOOKUP_MS): Promise<RankLookup | null> {
  const provider = providerOf(env);
  if (!provider) return null;
  try {
    const response = await fetch(provider.request(host), { signal: AbortSignal.timeout(timeoutMs) });
    if (!response.ok) {
      await response.body?.cancel();
      if (response.status === 404 && provider.notFoundIsUnknown)
        return { ok: true, provider: provider.name, figures: { domainAuthority: null, backlinks: null } };
      return { ok: false, provider: provider.name, error: `it answered ${response.status}` };
    }
    return { ok: true, provider: provider.name, figures: provider.read(await response.json(), host) };
  } catch (error) {
    const timedOut = error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError");
    return { ok: false, provider: provider.name, error: timedOut ? "it took too long" : "it could not be reached" };
  }
}

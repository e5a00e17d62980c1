/** The five sample cards of the landing page's Popular Sites carousel. */
export interface PopularSiteCard {
  type: "Blog" | "Product" | "Cooking" | "Educational" | "Gaming";
  score: number;
  url: string;
  description: string;
  icon: string;
}

const SAMPLES: Omit<PopularSiteCard, "score">[] = [
  { type: "Blog", url: "wanderingnotes.blog", description: "Slow travel stories and practical guides for long stays abroad.", icon: "blog" },
  { type: "Product", url: "tasktide.app", description: "A calm to-do list for small teams, with shared boards and reminders.", icon: "product" },
  { type: "Cooking", url: "weeknightpantry.com", description: "Thirty-minute dinners from what is already in your cupboard.", icon: "cooking" },
  {
    type: "Educational",
    url: "mathsmadeclear.org",
    description: "Free lessons and worked examples from arithmetic to calculus.",
    icon: "educational",
  },
  { type: "Gaming", url: "pixelquestreviews.net", description: "Honest reviews of indie games, with playtime and value scores.", icon: "gaming" },
];

/** Scores are random from 40 to 99; `random` returns [0, 1). */
export function popularSiteCards(random: () => number = Math.random): PopularSiteCard[] {
  return SAMPLES.map((sample) => ({ ...sample, score: 40 + Math.floor(random() * 60) }));
}

/** The cards rotated so that `offset` comes first; offsets wrap in both directions. */
export function rotate<T>(items: readonly T[], offset: number): T[] {
  if (items.length === 0) return [];
  const start = ((offset % items.length) + items.length) % items.length;
  return [...items.slice(start), ...items.slice(0, start)];
}

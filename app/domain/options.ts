/** The product's option lists (tags, materials, content types, categories): ids and labels. */
export interface Option<Id extends string = string> {
  id: Id;
  label: string;
}

export const CATEGORY_TAGS = [
  { id: "technology", label: "Technology" },
  { id: "business", label: "Business" },
  { id: "blog", label: "Blog" },
  { id: "seo", label: "SEO" },
  { id: "marketing", label: "Marketing" },
  { id: "e-commerce", label: "E-commerce and Trading" },
  { id: "dropshipping", label: "Dropshipping" },
  { id: "product-service", label: "Product / Service" },
  { id: "news-journalism", label: "News and Journalism" },
  { id: "cybersecurity", label: "Cybersecurity" },
  { id: "ai", label: "AI" },
  { id: "travel", label: "Travel" },
  { id: "fin-tech", label: "Fin-tech" },
] as const satisfies readonly Option[];

export const PROVIDED_MATERIALS = [
  { id: "blog-content", label: "Blog content" },
  { id: "short-description", label: "Short description" },
  { id: "long-description", label: "Long description" },
  { id: "logo", label: "Logo" },
] as const satisfies readonly Option[];

export const CONTENT_TYPES = [
  { id: "blog-post", label: "Blog post" },
  { id: "feature", label: "Feature" },
  { id: "sub-link", label: "Sub-link" },
  { id: "other", label: "Other" },
] as const satisfies readonly Option[];

/** The site category chosen on the site-add form: Blog or Product. */
export const SITE_CATEGORIES = [
  { id: "blog", label: "Blog" },
  { id: "product", label: "Product" },
] as const satisfies readonly Option[];

export type TagId = (typeof CATEGORY_TAGS)[number]["id"];
export type MaterialId = (typeof PROVIDED_MATERIALS)[number]["id"];
export type ContentTypeId = (typeof CONTENT_TYPES)[number]["id"];
export type SiteCategoryId = (typeof SITE_CATEGORIES)[number]["id"];

export const DEFAULT_MATERIAL: MaterialId = "logo";

export function labelOf(options: readonly Option[], id: string): string {
  return options.find((option) => option.id === id)?.label ?? id;
}

/** The labels of a list of ids, joined with commas (empty for none). */
export function labelsOf(options: readonly Option[], ids: readonly string[]): string {
  return ids.map((id) => labelOf(options, id)).join(", ");
}

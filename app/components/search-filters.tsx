import { Form, Link } from "@remix-run/react";
import { CATEGORY_TAGS, type Option } from "~/domain/options";
import { AUTHORITY_BANDS } from "~/domain/score";
import type { SearchQuery } from "~/domain/search";

/** A dropdown of checkboxes; with JavaScript or without, Apply sends them as a plain GET form. */
function FilterDropdown({ title, name, options, chosen }: { title: string; name: string; options: readonly Option[]; chosen: string[] }) {
  return (
    <details className="filter">
      <summary>
        {title}
        {chosen.length > 0 ? ` (${chosen.length})` : ""}
      </summary>
      <div className="filter-panel">
        {options.map((option) => (
          <label key={option.id} className="check">
            <input type="checkbox" name={name} value={option.id} defaultChecked={chosen.includes(option.id)} />
            {option.label}
          </label>
        ))}
      </div>
    </details>
  );
}

/** The search's category and authority filters and its order, for `query`'s term; `clearTo`, when set, drops them. */
export function SearchFilters({ query, clearTo }: { query: SearchQuery; clearTo: string | null }) {
  // The boxes start from the search shown: a new search (Clear, Back, the header's box) builds the form again, so no
  // box ticked before stays ticked, and the dropdowns close.
  const shown = [query.term, query.tags.join(), query.bands.join(), query.sort].join("|");
  return (
    <Form method="get" action="/search" className="filters" aria-label="Filters" key={shown}>
      <input type="hidden" name="term" value={query.term} />
      <FilterDropdown title="Category" name="tag" options={CATEGORY_TAGS} chosen={query.tags} />
      <FilterDropdown title="Authority" name="band" options={AUTHORITY_BANDS} chosen={query.bands} />
      <label className="sort-select">
        <span>Sort</span>
        <select name="sort" defaultValue={query.sort}>
          <option value="newest">Newest</option>
          <option value="record">Best record</option>
        </select>
      </label>
      <button type="submit" className="button button-primary button-small">
        Apply
      </button>
      {clearTo ? (
        <Link to={clearTo} className="button button-ghost button-small">
          Clear
        </Link>
      ) : null}
    </Form>
  );
}

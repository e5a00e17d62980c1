import { Form, Link } from "@remix-run/react";
import { useState, type MouseEvent } from "react";
import { rotate, type PopularSiteCard } from "~/domain/popular-sites";
import { ScoreBadge } from "./score-badge";
import { SiteIcon } from "./site-icon";

function PopularCard({ card }: { card: PopularSiteCard }) {
  return (
    <article className="popular-card" data-testid="popular-card">
      <header>
        <SiteIcon icon={card.icon} size={40} />
        <span className="popular-type">{card.type}</span>
        <ScoreBadge score={card.score} />
      </header>
      <p className="popular-url">{card.url}</p>
      <p className="popular-description">{card.description}</p>
    </article>
  );
}

/** Left and right controls rotate the cards: links that work without JavaScript, state with it. */
function PopularSites({ cards, initialSlide }: { cards: PopularSiteCard[]; initialSlide: number }) {
  const [slide, setSlide] = useState(initialSlide);
  // Said after a turn, in place of reading every card again: which one now comes first.
  const [turned, setTurned] = useState(false);
  const count = cards.length;
  const shown = rotate(cards, slide);
  const previous = (slide - 1 + count) % count;
  const next = (slide + 1) % count;
  const go = (target: number) => (event: MouseEvent) => {
    event.preventDefault();
    setSlide(target);
    setTurned(true);
  };
  return (
    <section className="popular" id="popular" aria-labelledby="popular-title">
      <div className="section-head">
        <h2 id="popular-title">Popular Sites</h2>
        <div className="carousel-controls">
          <Link to={`/?slide=${previous}#popular`} onClick={go(previous)} className="round-button" aria-label="Previous sites" preventScrollReset>
            ‹
          </Link>
          <Link to={`/?slide=${next}#popular`} onClick={go(next)} className="round-button" aria-label="Next sites" preventScrollReset>
            ›
          </Link>
        </div>
      </div>
      <p className="visually-hidden" role="status">
        {turned && shown[0] ? `First now: ${shown[0].url}` : ""}
      </p>
      <div className="carousel">
        {shown.map((card) => (
          <PopularCard key={card.url} card={card} />
        ))}
      </div>
    </section>
  );
}

const DECORATIVE = [
  { label: "Authority", value: "72", tone: "green" },
  { label: "New offer", value: "+12 connects", tone: "brand" },
  { label: "Backlink live", value: "techdaily.io", tone: "orange" },
];

export function LandingPage({ cards, slide }: { cards: PopularSiteCard[]; slide: number }) {
  return (
    <main className="landing" id="main">
      <section className="hero">
        <div className="hero-copy">
          <p className="eyebrow">Beta · A new way of backlink building</p>
          <h1>Grow organic website traffic at no cost</h1>
          <p className="lead">
            Get an authority score for your site, find related sites matched by content and score, and trade content and backlinks with their owners.
          </p>
          <Form method="get" action="/add-site" className="hero-form">
            <input type="hidden" name="source" value="hero" />
            <label htmlFor="hero-url" className="visually-hidden">
              Your website
            </label>
            <input id="hero-url" name="url" type="text" inputMode="url" placeholder="yourwebsite.com" autoComplete="url" maxLength={2048} />
            <button type="submit" className="button button-primary">
              Start matching
            </button>
          </Form>
          <Link to="/signup" className="text-link">
            Get beta access <span aria-hidden="true">→</span>
          </Link>
        </div>
        <div className="hero-art" aria-hidden="true">
          {DECORATIVE.map((card, index) => (
            <div key={card.label} className={`float-card float-card-${index} tone-${card.tone}`}>
              <span>{card.label}</span>
              <strong>{card.value}</strong>
            </div>
          ))}
        </div>
      </section>

      <PopularSites cards={cards} initialSlide={slide} />

      <section className="banner">
        <h2>Get more organic traffic - No cost involved</h2>
        <Link to="/signup" className="button button-light">
          Get beta access
        </Link>
      </section>

      <section className="stat-panel">
        <p className="stat-number">3.8x</p>
        <p>
          Sites ranking first on a search engine have 3.8x more backlinks than the rest of the top 10.
          <span className="stat-source">Source: a study published by an email marketing company</span>
        </p>
      </section>

      <section className="features" aria-label="Features">
        <article>
          <h3>Authority Score</h3>
          <p>See how search engines are likely to rate your site, from its rank and traffic, and what to improve.</p>
        </article>
        <article>
          <h3>Suggestions</h3>
          <p>Get related sites matched by content and score, so every link you trade is one that counts.</p>
        </article>
        <article>
          <h3>Trade</h3>
          <p>Propose content and backlink swaps, agree the terms, and track both deliveries to the end.</p>
        </article>
      </section>
    </main>
  );
}

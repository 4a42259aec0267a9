// The hosted banner's install snippet. It is the same for every domain of the organisation (it
// names the organisation, not a domain): the banner script itself checks the page's hostname
// against the registered domains, so the list of those domains is shown with it.
import { api, ok } from "../../api/client.js";
import { ApiError } from "../../api/errors.js";
import { CopyButton, EmptyState, ErrorNotice, Loading, useApi } from "../../ui/index.js";
import type { PagedList } from "./usePagedList.js";

type Domain = { domain: string };

export function SnippetSection({ domains }: { domains: PagedList<Domain> }) {
  const snippet = useApi(() => ok(api.GET("/api/v1/staff/integrations/banner")), []);

  let body;
  if (snippet.error instanceof ApiError && snippet.error.status === 404) {
    body = (
      <EmptyState title="This Guard has no banner script">
        The server was built without the hosted banner, so there is nothing to paste. Build the banner (
        <code>npm run build -w banner</code>) and restart Guard.
      </EmptyState>
    );
  } else if (snippet.error) {
    body = <ErrorNotice error={snippet.error} title="Could not load the snippet" onRetry={snippet.reload} />;
  } else if (!snippet.data) {
    body = <Loading label="Loading the snippet…" />;
  } else {
    const s = snippet.data;
    body = (
      <>
        <div className="integrations-snippet">
          <pre className="integrations-pre" tabIndex={0} aria-label="Banner snippet">
            {s.snippet}
          </pre>
          <CopyButton text={s.snippet} label="Copy snippet" />
        </div>
        <dl className="integrations-facts">
          <dt>Script URL</dt>
          <dd>
            <code className="integrations-break">{s.scriptUrl}</code>
          </dd>
          <dt>Integrity</dt>
          <dd>
            <code className="integrations-break">{s.integrity}</code>
          </dd>
          <dt>Banner version</dt>
          <dd>{s.bannerVersion}</dd>
        </dl>
      </>
    );
  }

  return (
    <section className="integrations-section" aria-labelledby="snippet">
      <h2 id="snippet">Banner snippet</h2>
      <p className="integrations-intro">
        Paste this line before <code>&lt;/head&gt;</code> in every page of your site. The same snippet serves
        all your registered domains.
      </p>
      {body}
      <h3 className="integrations-h3">Domains it serves</h3>
      <ServedDomains domains={domains} />
      <p className="integrations-note">
        Pasted into a page on a domain that is not listed here, the snippet does nothing (no banner appears)
        until that exact hostname is registered below. Sub-domains are not included: register each one.
      </p>
    </section>
  );
}

function ServedDomains({ domains }: { domains: PagedList<Domain> }) {
  if (!domains.loaded) {
    return domains.error ? (
      <ErrorNotice error={domains.error} title="Could not load the domains" onRetry={domains.reload} />
    ) : (
      <Loading label="Loading domains…" />
    );
  }
  if (domains.items.length === 0)
    return <p className="integrations-empty">No domains are registered yet, so the banner shows nowhere.</p>;
  return (
    <ul className="integrations-served" aria-label="Domains the snippet serves">
      {domains.items.map((d) => (
        <li key={d.domain}>
          <code>{d.domain}</code>
        </li>
      ))}
      {domains.hasMore ? <li>…and more (see Registered domains)</li> : null}
    </ul>
  );
}

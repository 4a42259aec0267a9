// The frame of every signed-in page: a skip link, the top bar (organisation, who is signed in,
// sign-out), the side navigation (collapsible on narrow screens) and the main region, which takes
// focus on each navigation so keyboard and screen-reader users start at the new page's content.
import { useEffect, useId, useRef, useState, type ReactNode } from "react";
import { NAV, type NavItem } from "../routes.js";
import { Link, useLocation } from "../router.js";
import { ROLE_LABELS } from "../session/roles.js";
import { useSession, useStaff } from "../session/SessionProvider.js";
import { ErrorNotice } from "./feedback.js";

function isCurrent(item: NavItem, path: string): boolean {
  return item.to === "/" ? path === "/" : path === item.to;
}

function isWithin(item: NavItem, path: string): boolean {
  return item.to !== "/" && path.startsWith(`${item.to}/`);
}

function NavLinks({ items, path }: { items: NavItem[]; path: string }) {
  return (
    <ul>
      {items.map((item) => (
        <li key={item.to}>
          <Link
            to={item.to}
            className={isWithin(item, path) ? "nav-link nav-link-within" : "nav-link"}
            aria-current={isCurrent(item, path) ? "page" : undefined}
          >
            {item.label}
          </Link>
          {item.children ? <NavLinks items={item.children} path={path} /> : null}
        </li>
      ))}
    </ul>
  );
}

export function Layout({ children }: { children: ReactNode }) {
  const staff = useStaff();
  const { signOut } = useSession();
  const { path } = useLocation();
  const [menuOpen, setMenuOpen] = useState(false);
  const [signOutError, setSignOutError] = useState<unknown>(undefined);
  const mainRef = useRef<HTMLElement>(null);
  const navId = useId();
  const first = useRef(true);

  useEffect(() => {
    setMenuOpen(false);
    if (first.current) {
      first.current = false;
      return;
    }
    mainRef.current?.focus();
  }, [path]);

  return (
    <div className="shell">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <button
          type="button"
          className="button menu-toggle"
          aria-expanded={menuOpen}
          aria-controls={navId}
          onClick={() => setMenuOpen((open) => !open)}
        >
          Menu
        </button>
        <Link to="/" className="brand">
          Guard
        </Link>
        <span className="org" title="Organisation">
          <span className="visually-hidden">Organisation: </span>
          {staff.organizationSlug}
        </span>
        <span className="who">
          <span className="who-email">{staff.email}</span>
          <span className="role-badge">{ROLE_LABELS[staff.role]}</span>
        </span>
        <button
          type="button"
          className="button sign-out"
          onClick={() => {
            setSignOutError(undefined);
            signOut().catch(setSignOutError);
          }}
        >
          Sign out
        </button>
      </header>
      <div className="body">
        <nav id={navId} className={menuOpen ? "sidenav sidenav-open" : "sidenav"} aria-label="Main">
          <NavLinks items={NAV} path={path} />
        </nav>
        <main id="main" ref={mainRef} tabIndex={-1} className="main">
          <ErrorNotice error={signOutError} title="Sign-out failed; you are still signed in" />
          {children}
        </main>
      </div>
    </div>
  );
}

// The app: the session decides between the sign-in page and the signed-in shell; the route table
// (routes.tsx) decides the page inside the shell.
import { Suspense, useEffect } from "react";
import { NotFoundPage } from "./pages/not-found/index.js";
import { SignInPage } from "./pages/sign-in/index.js";
import { ROUTES } from "./routes.js";
import { matchPath, navigate, useLocation } from "./router.js";
import { SIGN_IN_PATH, safeNext, SessionProvider, useSession } from "./session/SessionProvider.js";
import { signInPathFor } from "./lib/paths.js";
import { ErrorNotice, Loading } from "./ui/index.js";
import { Layout } from "./ui/Layout.js";

function CurrentPage({ path }: { path: string }) {
  for (const route of ROUTES) {
    const params = matchPath(route.pattern, path);
    if (params) {
      const Page = route.page;
      return (
        <Suspense fallback={<Loading label="Loading the page…" />}>
          <Page params={params} />
        </Suspense>
      );
    }
  }
  return <NotFoundPage path={path} />;
}

function Routed() {
  const { status, loadError, retryLoad } = useSession();
  const { path, query, full } = useLocation();
  const onSignIn = path === SIGN_IN_PATH;

  useEffect(() => {
    if (status === "signed-out" && !onSignIn && !loadError) navigate(signInPathFor(full), { replace: true });
    if (status === "signed-in" && onSignIn) navigate(safeNext(query.get("next")), { replace: true });
  }, [status, onSignIn, full, query, loadError]);

  if (status === "loading") {
    return (
      <main className="centered" id="main">
        <Loading label="Loading your session…" />
      </main>
    );
  }
  if (loadError) {
    return (
      <main className="centered" id="main">
        <ErrorNotice error={loadError} title="Guard could not be reached" onRetry={retryLoad} />
      </main>
    );
  }
  if (status === "signed-out" || onSignIn) return status === "signed-out" ? <SignInPage /> : null;
  return (
    <Layout>
      <CurrentPage path={path} />
    </Layout>
  );
}

export function App() {
  return (
    <SessionProvider>
      <Routed />
    </SessionProvider>
  );
}

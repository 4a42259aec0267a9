import { useEffect, type ReactNode } from "react";

/** A page's heading, optional intro and actions; sets the document title to match. */
export function Page({
  title,
  intro,
  actions,
  children,
}: {
  title: string;
  intro?: ReactNode;
  actions?: ReactNode;
  children?: ReactNode;
}) {
  useEffect(() => {
    document.title = `${title} · Guard`;
  }, [title]);
  return (
    <>
      <div className="page-head">
        <h1>{title}</h1>
        {actions ? <div className="page-actions">{actions}</div> : null}
      </div>
      {intro ? <p className="page-intro">{intro}</p> : null}
      {children}
    </>
  );
}

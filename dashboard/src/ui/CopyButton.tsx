import { useEffect, useId, useState } from "react";

/** Copies `text`; says so in words (announced), and explains when the browser refused. */
export function CopyButton({ text, label = "Copy" }: { text: string; label?: string }) {
  const [state, setState] = useState<"idle" | "copied" | "failed">("idle");
  useEffect(() => {
    if (state === "idle") return;
    const timer = setTimeout(() => setState("idle"), 3000);
    return () => clearTimeout(timer);
  }, [state]);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setState("copied");
    } catch {
      setState("failed");
    }
  };
  return (
    <span className="copy">
      <button type="button" className="button button-small" onClick={() => void copy()}>
        {label}
      </button>
      <span className="copy-status" role="status" aria-live="polite">
        {state === "copied" ? "Copied" : state === "failed" ? "Copy failed: select the text and copy it" : ""}
      </span>
    </span>
  );
}

/**
 * A secret Guard shows once (an API key, a webhook signing secret): the value, a copy button and a
 * warning that it cannot be shown again. Unmount it (onDone) when the user has stored it.
 */
export function SecretOnce({
  label,
  secret,
  onDone,
}: {
  label: string;
  secret: string;
  onDone?: () => void;
}) {
  const id = useId();
  return (
    <section className="secret-once" aria-labelledby={id}>
      <h3 id={id}>{label}</h3>
      <p className="secret-warning">
        <strong>Shown once.</strong> Copy it now and store it somewhere safe: Guard keeps only a hash and
        cannot show it again.
      </p>
      <div className="secret-value">
        <code tabIndex={0} aria-label={`${label} value`}>
          {secret}
        </code>
        <CopyButton text={secret} label={`Copy ${label.toLowerCase()}`} />
      </div>
      {onDone ? (
        <button type="button" className="button" onClick={onDone}>
          I have stored it
        </button>
      ) : null}
    </section>
  );
}

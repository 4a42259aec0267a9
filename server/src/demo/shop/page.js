// The demo page's own script: shows what the banner decided and opens the preference centre.
// Everything it uses is the banner's public surface: the guard:consent event and window.Guard.
function show(detail) {
  const choices = Object.entries(detail.purposes)
    .map(([purpose, given]) => `${purpose}: ${given ? "consented" : "refused"}`)
    .join(", ");
  document.getElementById("choices").textContent = choices || "none";
  document.getElementById("anonymous-id").textContent = detail.anonymousId;
  if (!detail.purposes.Analytics && !window.demoAnalyticsLoaded) {
    document.getElementById("analytics-state").textContent = "blocked (no consent to Analytics)";
  } else if (!detail.purposes.Analytics) {
    document.getElementById("analytics-state").textContent =
      "consent withdrawn (a tag that already ran stops on the next page load)";
  }
}

document.addEventListener("guard:consent", (event) => show(event.detail));
document.getElementById("open-preferences").addEventListener("click", () => {
  if (window.Guard) window.Guard.openPreferences();
});

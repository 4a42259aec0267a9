// The demo's "analytics tag": the banner runs it only once the visitor consents to Analytics.
window.demoAnalyticsLoaded = true;
document.getElementById("analytics-state").textContent = "running (consent to Analytics given)";

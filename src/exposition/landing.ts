/** The landing page at `/`: what this is and where to look. No configuration, no secrets. */

/** Text safe inside HTML elements and quoted attributes. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Renders the landing page HTML. */
export function landingPage(options: { version: string; telemetryPath: string }): string {
  const version = escapeHtml(options.version);
  const metrics = escapeHtml(options.telemetryPath);
  return `<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>Cribl Exporter</title></head>
<body>
<h1>Cribl Exporter</h1>
<p>Prometheus exporter for the control plane of Cribl Stream and Cribl Edge leaders. Version ${version}.</p>
<ul>
<li><a href="${metrics}">${metrics}</a>: metrics (served from the cached snapshot; never calls a leader)</li>
<li><a href="/healthz">/healthz</a>: process alive</li>
<li><a href="/readyz">/readyz</a>: ready after the first successful discovery</li>
</ul>
</body>
</html>
`;
}

/** Assets copied from swagger-ui-dist by scripts/build-assets.mjs and served as Workers static assets. */
export const DOCS_ASSETS_PATH = "/_docs";

export function docsPage(schemaUrl: string): string {
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>edgehog API reference</title>
  <link rel="stylesheet" href="${DOCS_ASSETS_PATH}/swagger-ui.css">
</head>
<body>
  <div id="docs"></div>
  <script src="${DOCS_ASSETS_PATH}/swagger-ui-bundle.js"></script>
  <script>
    window.ui = SwaggerUIBundle({ url: ${JSON.stringify(schemaUrl)}, dom_id: "#docs", deepLinking: true });
  </script>
</body>
</html>`;
}

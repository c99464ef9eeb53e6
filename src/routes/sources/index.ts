// Registered sources over HTTP (both route families) and their webhook.
export { sourcesRoutes, type SourcesRouteOptions } from './sources-routes.js';
export { webhookRoute, type WebhookRouteOptions } from './webhook-route.js';

// Insights over the question log: feedback on answers, and the gaps report (under /tools and /api).
export { feedbackRoute } from './feedback-route.js';
export { gapsRoutes, type GapsRouteOptions } from './gaps-route.js';

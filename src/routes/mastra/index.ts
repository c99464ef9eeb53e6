// Mastra's server API as its client SDK calls it: the agent's details and stream, and the tool listings.
export { mastraRoutes, type MastraRouteOptions } from './mastra-routes.js';

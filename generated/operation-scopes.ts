// Generated from the security of each operation in openapi.yaml by scripts/generate.mjs. Do not edit.
// Each entry lists the scope sets a bearer token may satisfy (any one set, every scope in it); operations not
// listed take no bearer token.
export const operationScopes = {
  approveOrder: [["trade"]],
  cancelOrder: [["trade"]],
  createPolicy: [["trade"]],
  createWebhookEndpoint: [["write"]],
  deleteWebhookEndpoint: [["write"]],
  engageKillSwitch: [["trade"]],
  evaluateGoalFeasibility: [["read"]],
  generateDailyReport: [["write"]],
  generateIdeas: [["trade"]],
  getCurrentDisclosure: [["read"]],
  getCurrentPolicy: [["read"]],
  getDailyReport: [["read"]],
  getEvent: [["read"]],
  getIdea: [["read"]],
  getKillSwitch: [["read"]],
  getOrder: [["read"]],
  getPolicy: [["read"]],
  getPortfolio: [["read"]],
  getWebhookEndpoint: [["read"]],
  listBrokers: [["read"]],
  listDailyReports: [["read"]],
  listEvents: [["read"]],
  listIdeas: [["read"]],
  listOrders: [["read"]],
  listPolicies: [["read"]],
  listWebhookEndpointDeliveries: [["read"]],
  listWebhookEndpoints: [["read"]],
  previewOrder: [["trade"]],
  recoverWebhookEndpointDeliveries: [["write"]],
  rejectOrder: [["trade"]],
  rotateWebhookEndpointSecret: [["write"]],
  testWebhookEndpoint: [["write"]],
  updateWebhookEndpoint: [["write"]],
} as const;

export type BearerOperationId = keyof typeof operationScopes;

export const anonymousOperations = ["getAuthorizationServerMetadata","getChallenge","getHealth","getJsonWebKeySet","getOpenApiDocument","getProtectedResourceMetadata","getReadiness","issueToken","logIn","sendContactMessage","signUp"] as const;

export type AnonymousOperationId = (typeof anonymousOperations)[number];

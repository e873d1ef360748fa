import { notYetAvailable, type Handler } from './types.js';

// The trading core (issue 3): each of these moves to its own file as it is built.
export const getCurrentDisclosure: Handler<'getCurrentDisclosure'> = async () => notYetAvailable();
export const listPolicies: Handler<'listPolicies'> = async () => notYetAvailable();
export const createPolicy: Handler<'createPolicy'> = async () => notYetAvailable();
export const getCurrentPolicy: Handler<'getCurrentPolicy'> = async () => notYetAvailable();
export const getPolicy: Handler<'getPolicy'> = async () => notYetAvailable();
export const getPortfolio: Handler<'getPortfolio'> = async () => notYetAvailable();
export const listBrokers: Handler<'listBrokers'> = async () => notYetAvailable();
export const listIdeas: Handler<'listIdeas'> = async () => notYetAvailable();
export const generateIdeas: Handler<'generateIdeas'> = async () => notYetAvailable();
export const getIdea: Handler<'getIdea'> = async () => notYetAvailable();
export const listOrders: Handler<'listOrders'> = async () => notYetAvailable();
export const getOrder: Handler<'getOrder'> = async () => notYetAvailable();
export const approveOrder: Handler<'approveOrder'> = async () => notYetAvailable();
export const rejectOrder: Handler<'rejectOrder'> = async () => notYetAvailable();
export const cancelOrder: Handler<'cancelOrder'> = async () => notYetAvailable();
export const getKillSwitch: Handler<'getKillSwitch'> = async () => notYetAvailable();
export const engageKillSwitch: Handler<'engageKillSwitch'> = async () => notYetAvailable();
export const listDailyReports: Handler<'listDailyReports'> = async () => notYetAvailable();
export const generateDailyReport: Handler<'generateDailyReport'> = async () => notYetAvailable();
export const getDailyReport: Handler<'getDailyReport'> = async () => notYetAvailable();

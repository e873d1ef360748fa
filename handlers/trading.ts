import { notYetAvailable, type Handler } from './types.js';

// Ideas and daily reports (issue 3) are being built; each moves to its own file when done.
export const listIdeas: Handler<'listIdeas'> = async () => notYetAvailable();
export const generateIdeas: Handler<'generateIdeas'> = async () => notYetAvailable();
export const getIdea: Handler<'getIdea'> = async () => notYetAvailable();
export const listDailyReports: Handler<'listDailyReports'> = async () => notYetAvailable();
export const generateDailyReport: Handler<'generateDailyReport'> = async () => notYetAvailable();
export const getDailyReport: Handler<'getDailyReport'> = async () => notYetAvailable();

import { ProblemError } from '../src/problems.js';
import * as reports from '../src/services/reports/daily.js';
import { principalOf, type Handler } from './types.js';

export const listDailyReports: Handler<'listDailyReports'> = async (context) => ({
  status: 200,
  body: await reports.listDailyReports(context.services.db.kysely, principalOf(context).accountId, context.query, context.services.clock.now()),
});

export const generateDailyReport: Handler<'generateDailyReport'> = async (context) => {
  const report = await reports.generateDailyReport(context.services, principalOf(context).accountId, context.body.date);
  return { status: 201, body: report, headers: { Location: `/v1/reports/daily/${report.date}` } };
};

export const getDailyReport: Handler<'getDailyReport'> = async (context) => {
  const report = await reports.getDailyReport(context.services.db.kysely, principalOf(context).accountId, context.path.date);
  if (!report) throw new ProblemError('not-found', `There is no daily report for ${context.path.date}; generate it with POST /v1/reports/daily.`);
  return { status: 200, body: report };
};

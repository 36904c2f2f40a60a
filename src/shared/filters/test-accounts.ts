/**
 * The filters every event of an analysis passes: its own, and with `filterTestAccounts` the project's
 * test-account filters as well (PostHog's Team.test_account_filters), ANDed. Undefined: no filter.
 */
export function withTestAccounts(
  properties: unknown,
  filterTestAccounts: boolean | null | undefined,
  testAccountFilters: unknown[],
): unknown {
  const own = properties === null || (Array.isArray(properties) && !properties.length) ? undefined : properties;
  if (!filterTestAccounts || !testAccountFilters.length) return own;
  return own === undefined ? testAccountFilters : [own, testAccountFilters];
}

/** A dashboard user's role: owners manage everything, developers keys and refunds, viewers only read. */
export const dashboardRoles = ["owner", "developer", "viewer"] as const;

export type DashboardRole = (typeof dashboardRoles)[number];

/** Whether a role may change anything (the server checks this on every write). */
export const mayChange = (role: DashboardRole): boolean => role !== "viewer";

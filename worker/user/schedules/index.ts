// Schedules: the user's list across threads (each thread fires its own) and the per-user maximum.
export { UserSchedules } from "./schedules";

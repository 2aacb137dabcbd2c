// Tasks: the user's delegated tasks, made and moved by the delegation plugin from their threads.
export { UserTasks, type TaskBounds, type TaskRefusal } from "./tasks";

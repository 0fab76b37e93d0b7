// A user's saved dashboard views: a name for a view's address (range, account, filters, sort,
// columns), listed in the dashboard's header. Each user reads and changes only their own; saving
// under a name already taken replaces that view's address.
import type { Viewer } from "@/server/accounts/sessions";
import { TallyError } from "@/server/core/errors";
import { db } from "@/server/db/client";
import { newId } from "@/server/db/ids";
import { MAX_SAVED_VIEWS, type TSaveViewInput, ZSaveViewInput } from "./saved-view-input";
import { lockSavedViewsOf } from "./saved-views.sql";

export interface SavedView {
  id: string;
  name: string;
  /** The view's address in the dashboard: path and query. */
  path: string;
  createdAt: Date;
}

const SUMMARY = { id: true, name: true, path: true, createdAt: true } as const;

/** The actor's saved views, by name. */
export async function listSavedViews({ actor }: { actor: Viewer }): Promise<SavedView[]> {
  return db.savedView.findMany({ where: { userId: actor.userId }, select: SUMMARY, orderBy: { name: "asc" } });
}

/** Saves the view under its name (replacing the address of a view of that name), within MAX_SAVED_VIEWS. */
export async function saveView({ actor, ...input }: { actor: Viewer } & TSaveViewInput): Promise<SavedView> {
  const parsed = ZSaveViewInput.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new TallyError("bad_request", `${String(issue.path[0] ?? "view")} ${issue.message}`);
  }
  const { name, path } = parsed.data;
  return db.$transaction(
    async (tx) => {
      await lockSavedViewsOf(tx, actor.userId);
      const same = await tx.savedView.findUnique({ where: { userId_name: { userId: actor.userId, name } }, select: { id: true } });
      if (same) return tx.savedView.update({ where: { id: same.id }, data: { path }, select: SUMMARY });
      if ((await tx.savedView.count({ where: { userId: actor.userId } })) >= MAX_SAVED_VIEWS) {
        throw new TallyError("bad_request", `you keep at most ${MAX_SAVED_VIEWS} saved views; remove one first`);
      }
      return tx.savedView.create({ data: { id: newId("view"), userId: actor.userId, name, path }, select: SUMMARY });
      // Saves of one user take turns on the lock, each holding a connection: give the last its time.
    },
    { maxWait: 10_000, timeout: 10_000 },
  );
}

/** Removes one of the actor's views; another user's, or an unknown id, is "no such view". */
export async function removeSavedView({ actor, id }: { actor: Viewer; id: string }): Promise<void> {
  const { count } = await db.savedView.deleteMany({ where: { id, userId: actor.userId } });
  if (count === 0) throw new TallyError("not_found", "no such saved view");
}

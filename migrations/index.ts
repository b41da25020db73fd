// Every committed migration, in order. MikroORM runs the ones a database has not recorded yet.
import { Migration20261122000000Catalog } from './Migration20261122000000Catalog.ts';
import { Migration20261122010000Accounts } from './Migration20261122010000Accounts.ts';
import { Migration20261122020000OAuth } from './Migration20261122020000OAuth.ts';
import { Migration20261122030000Library } from './Migration20261122030000Library.ts';
import { Migration20261122040000Lists } from './Migration20261122040000Lists.ts';
import { Migration20261122045000Collection } from './Migration20261122045000Collection.ts';
import { Migration20261122050000Sync } from './Migration20261122050000Sync.ts';
import { Migration20261122060000Playback } from './Migration20261122060000Playback.ts';
import { Migration20261122070000Profiles } from './Migration20261122070000Profiles.ts';
import { Migration20261122071000Notifications } from './Migration20261122071000Notifications.ts';
import { Migration20261122072000Trophies } from './Migration20261122072000Trophies.ts';
import { Migration20261122081000SyncWrites } from './Migration20261122081000SyncWrites.ts';
import { Migration20261122090000Jobs } from './Migration20261122090000Jobs.ts';
import { Migration20261122091000DailyStats } from './Migration20261122091000DailyStats.ts';
import { Migration20261122100000ListPreviews } from './Migration20261122100000ListPreviews.ts';
import { Migration20261123090000AccountSessions } from './Migration20261123090000AccountSessions.ts';
import { Migration20261124003244_EntityConstraintNames } from './Migration20261124003244_EntityConstraintNames.ts';
import { Migration20261124071317_TitleRecommendations } from './Migration20261124071317_TitleRecommendations.ts';
import { Migration20261124102713_AppOwner } from './Migration20261124102713_AppOwner.ts';
import { Migration20261124133935_ImportRuns } from './Migration20261124133935_ImportRuns.ts';
import { Migration20261124140000_TitleMatchName } from './Migration20261124140000_TitleMatchName.ts';
import { Migration20261127225434_DemoImportSteps } from './Migration20261127225434_DemoImportSteps.ts';

export const migrationsList = [
  { name: 'Migration20261122000000Catalog', class: Migration20261122000000Catalog },
  { name: 'Migration20261122010000Accounts', class: Migration20261122010000Accounts },
  { name: 'Migration20261122020000OAuth', class: Migration20261122020000OAuth },
  { name: 'Migration20261122030000Library', class: Migration20261122030000Library },
  { name: 'Migration20261122040000Lists', class: Migration20261122040000Lists },
  { name: 'Migration20261122045000Collection', class: Migration20261122045000Collection },
  { name: 'Migration20261122050000Sync', class: Migration20261122050000Sync },
  { name: 'Migration20261122060000Playback', class: Migration20261122060000Playback },
  { name: 'Migration20261122070000Profiles', class: Migration20261122070000Profiles },
  { name: 'Migration20261122071000Notifications', class: Migration20261122071000Notifications },
  { name: 'Migration20261122072000Trophies', class: Migration20261122072000Trophies },
  { name: 'Migration20261122081000SyncWrites', class: Migration20261122081000SyncWrites },
  { name: 'Migration20261122090000Jobs', class: Migration20261122090000Jobs },
  { name: 'Migration20261122091000DailyStats', class: Migration20261122091000DailyStats },
  { name: 'Migration20261122100000ListPreviews', class: Migration20261122100000ListPreviews },
  { name: 'Migration20261123090000AccountSessions', class: Migration20261123090000AccountSessions },
  { name: 'Migration20261124003244_EntityConstraintNames', class: Migration20261124003244_EntityConstraintNames },
  { name: 'Migration20261124071317_TitleRecommendations', class: Migration20261124071317_TitleRecommendations },
  { name: 'Migration20261124102713_AppOwner', class: Migration20261124102713_AppOwner },
  { name: 'Migration20261124133935_ImportRuns', class: Migration20261124133935_ImportRuns },
  { name: 'Migration20261124140000_TitleMatchName', class: Migration20261124140000_TitleMatchName },
  { name: 'Migration20261127225434_DemoImportSteps', class: Migration20261127225434_DemoImportSteps },
];

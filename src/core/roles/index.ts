export {
  createCatalogue,
  release25101Catalogue,
  shippedCatalogue,
  catalogueFromPrivilegeRoles,
  type RoleCatalogue,
} from './catalogue.js';
export { expandRoles } from './expand.js';
export {
  analyzeRoleList,
  minimalRoleList,
  breaksLogin,
  findingBreaksLogin,
  type LockoutRule,
  type RoleFinding,
  type RoleListAnalysis,
} from './analyze.js';
export { coverMethods, type MethodGrants } from './cover.js';
export { fixRoleList, type RoleListFix, type RoleListFixOptions } from './fix.js';
export {
  includedByDirectly,
  includedByInTotal,
  includesInTotal,
  inclusionTree,
  topRoles,
  type RoleTreeNode,
  type TreeMark,
} from './graph.js';

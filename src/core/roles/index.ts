export {
  createCatalogue,
  release25101Catalogue,
  catalogueFromPrivilegeRoles,
  type RoleDefinition,
  type RoleCatalogue,
} from './catalogue.js';
export { expandRoles } from './expand.js';
export {
  analyzeRoleList,
  minimalRoleList,
  breaksLoginOnRelease25101,
  type RoleFinding,
  type RoleListAnalysis,
} from './analyze.js';

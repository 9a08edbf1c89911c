// The sandbox's front door: everything outside src/sandbox/ imports from here, and only this
// (eslint.config.js enforces it). Inside: policy/ (the verdict on a call, rules, file tools'
// protected writes), paths/ (path checks, real paths, state roots, what the host runs, `.git`
// scans), confine/ (bubblewrap, command environment, workspace guard, violations) and bash/ (the
// classifier, with parse/ and knowledge/), and facts.ts (what it remembers, owned by the caller).
export { createHostFacts, type HostFacts, type ReadOutsideChoice, type UnixSocketsChoice, type SearchEngineChoice, type SearchProbe, type WorkspaceFacts } from './facts.js';

export { decide, type PolicyVerdict } from './policy/policy.js';
export { buildRuleSet, type RuleSet } from './policy/rules.js';
export { guardProtectedWrite } from './policy/protected-write.js';
export { callReach, guardReads, type ReadReach } from './policy/read-guard.js';
export { inSecretLocation, secretLocations } from './paths/secret-paths.js';

export { checkRealPath, protectedWrite } from './paths/paths.js';
export { readFdTextSync, readFileHeadSync, readSmallFileSync, realPathOf } from './paths/real-path.js';
export { inStateBlock, stateBlocks } from './paths/state-roots.js';
export { ChangeJournal, type WorkspaceChanges } from './paths/change-journal.js';
export { slicer } from './paths/slices.js';

export { BWRAP_INSTALL_HINT, confineCommand, probeBwrap, subreaperMissing, type ConfinedSpawn, type ProbeExec } from './confine/confine.js';
export { startNetHolder, type NetHolder } from './confine/net-holder.js';
export { adoptLiveEnviron, scrubInitialEnviron } from './confine/environ.js';
export { withNeutralGit } from './confine/git-env.js';
export { pidsCgroupAvailable } from './confine/cgroup.js';
export { BACKGROUND_LIMITS, COMMAND_LIMITS } from './limits.js';
export { detectViolation } from './confine/violation.js';
export { refreshHomeSockets } from './confine/home-masks.js';
export { scanWorkspace, sweepGitDir, sweepWorkspace, type WorkspaceScan } from './confine/workspace-guard.js';

export { nonPublicReason } from './net/address.js';
export { addressRefusal, DEFAULT_WEB_CHOICE, domainAllowed, fetchKey, hostOf, judgeFetch, privateAllowed, type WebChoice } from './net/web-policy.js';

export { bashApproval, loadBashParser } from './bash/on-demand.js';
export { gitMetadataNote, type GitMetadataNeed } from './bash/git-metadata-note.js';

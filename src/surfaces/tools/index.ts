import { blackboardQuery, blackboardRead, blackboardWrite, cycleStatus, cycleTick, episodesRecent } from './blackboard.ts';
import { deepRecall } from './deep-recall.ts';
import { memoryContext } from './memory-context.ts';
import { memoryEdit } from './memory-edit.ts';
import { memoryForget } from './memory-forget.ts';
import { memoryGet } from './memory-get.ts';
import { memoryHistory } from './memory-history.ts';
import { memoryList } from './memory-list.ts';
import { memorySearch } from './memory-search.ts';
import { memoryStatus } from './memory-status.ts';
import { recallRange } from './recall-range.ts';
import { selfStateTool } from './self-state.ts';
import type { Tool } from './tool.ts';
import { workingMemoryNote } from './working-memory-note.ts';
import { consolidationStatus } from './consolidation-status.ts';
import { memoryGraph } from './memory-graph.ts';
import { memoryPin } from './memory-pin.ts';
import { journalQuery } from './journal-query.ts';
import { journalView } from './journal-view.ts';

/** Every agent tool. A new tool is one module plus one entry here; MCP, HTTP and OpenAPI follow. */
export const TOOLS: Tool[] = [memorySearch, memoryContext, memoryGet, memoryList, workingMemoryNote, memoryForget, memoryEdit, memoryHistory, recallRange, deepRecall, memoryStatus, selfStateTool, blackboardWrite, blackboardRead, blackboardQuery, cycleStatus, cycleTick, episodesRecent, memoryPin, consolidationStatus, memoryGraph, journalQuery, journalView] as Tool[];

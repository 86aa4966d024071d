#!/usr/bin/env node
import '../dist/launcher.js';

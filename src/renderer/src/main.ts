// Renderer entry: global styles, zod without eval (the CSP forbids it), and the app mounted.
import { mount } from 'svelte';
import { z } from 'zod';
import App from './App.svelte';
import './app.css';

z.config({ jitless: true });

const target = document.getElementById('app');
if (!target) throw new Error('index.html has no #app element');

export default mount(App, { target });
